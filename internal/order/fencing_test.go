package order_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestPausePastTTL: buyer A takes a db-lock-table lock (TTL 300 ms) and
// stalls 900 ms before writing; buyer B reclaims the expired lock meanwhile and
// buys. Without fencing both writes land (a lost update, and the detector sees
// the overlap); with fencing A's stale write is rejected and counted.
func TestPausePastTTL(t *testing.T) {
	store, _, svc := newService(t, "fence")

	for _, fencing := range []bool{false, true} {
		ctx := context.Background()
		sale := inventory.Sale{Name: "pause", Strategy: "db-lock-table", InitialStock: 10, TTLMS: 300, Fencing: fencing}
		if err := store.CreateSale(ctx, &sale); err != nil {
			t.Fatal(err)
		}
		svc.PauseNextSection(3 * time.Second)
		errA := make(chan error, 1)
		go func() {
			_, err := svc.Place(ctx, sale.ID, "A")
			errA <- err
		}()
		// A holds the lock, stalled; B waits for A's row to expire (300 ms)
		// and takes the lock while A still sleeps.
		testenv.WaitFor(t, 30*time.Second, "A stalled inside its section", func() bool { return svc.PausedSections() == 1 })
		if _, err := svc.Place(ctx, sale.ID, "B"); err != nil {
			t.Fatalf("fencing=%v: B: %v", fencing, err)
		}
		aErr := <-errA
		svc.Flush()
		got, _ := store.GetSale(ctx, sale.ID)
		v, err := store.View(ctx, got)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("fencing=%v: A: %v; sold %d, stock %d, lost updates %d, violations %d, fenced writes %d",
			fencing, aErr, v.Sold, v.Stock, v.LostUpdates, v.Violations, v.FencedWrites)
		if v.Violations < 1 {
			t.Errorf("fencing=%v: the overlap of A and B was not detected", fencing)
		}
		if !fencing {
			if aErr != nil || v.Sold != 2 || v.LostUpdates != 1 {
				t.Errorf("without fencing the stale write should land and lose B's update: A=%v %+v", aErr, v.Stats)
			}
			continue
		}
		if !errors.Is(aErr, order.ErrFenced) || v.Sold != 1 || v.Stock != 9 || v.LostUpdates != 0 || v.FencedWrites != 1 {
			t.Errorf("with fencing A's stale write must be rejected and counted: A=%v %+v stock %d", aErr, v.Stats, v.Stock)
		}
	}
}
