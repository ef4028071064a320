package orderqueue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// One bad entry fails alone: a batch that holds an entry queued before the
// buyer rule ("alice " beside "alice" with the same key: one row to the
// database's unique key) and an entry whose row the database refuses is
// persisted all the same. Each bad ticket fails with its reason and its
// unit goes back; every honest buyer's ticket is confirmed; nothing stays
// in flight. Before, the batch's INSERT failed on the key for ever and took
// every honest ticket in it down too.
func TestBadEntryFailsAlone(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 30, inventory.OrderAsync, 0)
	mallory := fmt.Sprintf("mallory-%d", s.ID)
	testenv.RefuseOrderRowsOf(t, l.b.DB, mallory)
	ctx := context.Background()
	enqueue := func(user, key string) string {
		t.Helper()
		a, err := l.queue.Enqueue(ctx, orderqueue.Request{SaleID: s.ID, SaleKey: l.orders.LockKey(s.ID), UserID: user,
			IdempotencyKey: key, PerUserLimit: s.PerUserLimit})
		if err != nil {
			t.Fatalf("enqueue %q: %v", user, err)
		}
		return a.Ticket
	}
	// Queued with no consumer running: they are read as one batch.
	honest := map[string]string{}
	for i := range 10 {
		u := fmt.Sprintf("honest-%d", i)
		honest[enqueue(u, "k-"+u)] = u
	}
	alice := enqueue("alice", "k-a")
	alicePadded := enqueue("alice ", "k-a")
	honest[alice] = "alice"
	refused := enqueue(mallory, "")
	l.consumer("badentry", time.Second)
	l.drained(s.ID)

	want := map[string]string{alicePadded: orderqueue.ReasonInvalidBuyer, refused: orderqueue.ReasonRefused}
	for tk, reason := range want {
		st, found, err := l.queue.Lookup(ctx, l.b.DB, l.orders.LockKey, tk)
		if err != nil || !found || st.State != orderqueue.StateFailed || st.Reason != reason {
			t.Errorf("bad ticket %s: %+v found %v err %v, want failed with %s", tk, st, found, err, reason)
		}
	}
	for tk, u := range honest {
		st, found, err := l.queue.Lookup(ctx, l.b.DB, l.orders.LockKey, tk)
		if err != nil || !found || st.State != orderqueue.StateConfirmed || st.UserID != u {
			t.Errorf("honest %s's ticket %s: %+v found %v err %v, want confirmed", u, tk, st, found, err)
		}
	}
	v := l.checkTruth(s)
	if v.Sold != int64(len(honest)) || v.Stock != 30-int64(len(honest)) {
		t.Errorf("sold %d, stock %d: want %d sold, the two bad units back", v.Sold, v.Stock, len(honest))
	}
}
