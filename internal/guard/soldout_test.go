package guard

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// wait bounds every wait here: generous for a loaded machine; the cache's
// own promise is a second.
const wait = 30 * time.Second

func newSale(t *testing.T, store *inventory.Store, stock int64) inventory.Sale {
	t.Helper()
	return saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: store.DB()}, nil), sale.Spec{Name: new("guard test"),
		Strategy: new("none"), Stock: &stock, SoldOutCache: new(true)})
}

func setStock(t *testing.T, store *inventory.Store, id uint64, stock int64) {
	t.Helper()
	if err := store.DB().Exec("UPDATE sales SET stock = ? WHERE id = ?", stock, id).Error; err != nil {
		t.Fatal(err)
	}
}

// Two replicas over one database and one Redis: what one confirms from the
// database the other learns from the channel; a restock's Clear reaches
// both. A sale whose stock of record is not 0 is never cached.
func TestSoldOutCacheAcrossReplicas(t *testing.T) {
	db := testenv.DB(t, "guard")
	rdb := testenv.Redis(t)
	store := inventory.NewStore(db)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	keyspace := fmt.Sprintf("guard_test_%d", time.Now().UnixNano())
	a, b := NewSoldOutCache(db, rdb, keyspace, nil), NewSoldOutCache(db, rdb, keyspace, nil)
	go a.Run(ctx)
	go b.Run(ctx)

	left := newSale(t, store, 3)
	if a.confirm(ctx, left.ID) || a.Known(left.ID) {
		t.Fatal("a sale with stock 3 in the database was cached as sold out")
	}
	gone := newSale(t, store, 1)
	setStock(t, store, gone.ID, 0)
	// b may subscribe after a's first message: a confirms until b has it
	// (the backstop would also get there, but b does not watch this sale).
	testenv.WaitFor(t, wait, "replica b learns the sold-out from replica a", func() bool {
		if !a.confirm(ctx, gone.ID) {
			t.Fatal("stock 0 in the database, yet not cached")
		}
		return b.Known(gone.ID)
	})
	setStock(t, store, gone.ID, 5) // a restock: the units first, then the clear
	a.Clear(ctx, gone.ID)
	// a hears its own messages too: a "set" it published in the loop above
	// may still be on its way to it, and land just after Clear's local drop
	// (seen once in a run of the package). The "clear" published after it
	// comes after it on the channel, so a drops the sale again: wait for
	// that, as for b.
	testenv.WaitFor(t, wait, "replica a drops the sale after its own Clear", func() bool { return !a.Known(gone.ID) })
	testenv.WaitFor(t, wait, "replica b drops the sale after the restock", func() bool { return !b.Known(gone.ID) })
	if b.Known(left.ID) {
		t.Fatal("replica b caches a sale with stock")
	}
}

// Without the channel (no Redis, or a message lost), the backstop reads
// the database: a watched sale at 0 is cached, a cached one with stock
// again is dropped.
func TestSoldOutCacheBackstop(t *testing.T) {
	db := testenv.DB(t, "guard")
	store := inventory.NewStore(db)
	c := NewSoldOutCache(db, nil, "guard_backstop", nil)
	s := newSale(t, store, 2)
	c.Watch(s.ID, true)
	c.backstop(context.Background())
	if c.Known(s.ID) {
		t.Fatal("the backstop cached a sale with stock 2")
	}
	setStock(t, store, s.ID, 0)
	c.backstop(context.Background())
	if !c.Known(s.ID) {
		t.Fatal("the backstop did not cache a watched sale at stock 0")
	}
	setStock(t, store, s.ID, 1)
	c.backstop(context.Background())
	if c.Known(s.ID) {
		t.Fatal("the backstop kept a sale whose stock came back")
	}
	off := newSale(t, store, 1)
	setStock(t, store, off.ID, 0)
	c.Watch(off.ID, false) // the sale's cache is off: never watched
	c.backstop(context.Background())
	if c.Known(off.ID) {
		t.Fatal("a sale with the cache off was cached")
	}
}
