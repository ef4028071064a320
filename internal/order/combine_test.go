package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// combinedSale creates a sale that combines: batches of at most maxBatch,
// gathered for at most waitUS.
func combinedSale(t *testing.T, sales *sale.Service, strategy string, stock int64, maxBatch, waitUS int, fencing bool) inventory.Sale {
	t.Helper()
	return saletest.Make(t, sales, sale.Spec{Name: new("combine " + strategy), Strategy: &strategy, Stock: &stock,
		TTLMS: new(int64(5000)), PerUserLimit: new(int64(1)), Fencing: &fencing, Combine: new(true),
		CombineMaxBatch: new(int64(maxBatch)), CombineMaxWaitUS: new(int64(waitUS))})
}

// TestCombinedHerd: two replicas sell one combining sale to a herd that
// repeats users (limit 1) and idempotency keys, for each lock strategy that
// keeps buyers apart. The database's truth must be exact: no unit oversold
// or lost, nobody over the limit, one order per key, no two batches
// overlapping; and every buyer told "order" has a row, every row was told.
func TestCombinedHerd(t *testing.T) {
	store, lockers, svcA := newService(t, "combine-a")
	svcB := newReplica(t, "combine-b")
	for _, c := range []struct {
		strategy string
		fencing  bool
	}{{"redis", true}, {"db-pessimistic", false}, {"zookeeper", true}, {"redisson", true}, {"db-lock-table", true}} {
		t.Run(c.strategy, func(t *testing.T) {
			const stock, users = 30, 50
			sale := combinedSale(t, sale.New(store.DB(), lockers, svcA), c.strategy, stock, 8, 2000, c.fencing)
			ctx := context.Background()
			var mu sync.Mutex
			told := map[uint64]bool{} // order ids answered
			keyOrders := map[string]int{}
			outcomes := map[string]int{}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for u := range users {
				for try := range 3 { // each user three times: twice with one key, once with another
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						svc := svcA
						if (u+try)%2 == 1 {
							svc = svcB
						}
						key := fmt.Sprintf("k%d-%d", u, min(try, 1))
						o, _, err := svc.Buy(ctx, order.Purchase{SaleID: sale.ID, UserID: fmt.Sprintf("u%d", u), IdempotencyKey: key})
						mu.Lock()
						defer mu.Unlock()
						outcomes[order.OutcomeOf(err)]++
						if err == nil {
							told[o.ID] = true
							keyOrders[key]++
						}
					}()
				}
			}
			close(start)
			wg.Wait()
			v := settledView(t, store, svcA, sale.ID)
			svcB.Flush()
			v = settledView(t, store, svcA, sale.ID)
			t.Logf("%s: outcomes %v; sold %d stock %d oversold %d lost %d duplicates %d violations %d; %d sections, %.1f units per hold",
				c.strategy, outcomes, v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Duplicates, v.Violations, v.LockCycle.Sections, v.LockCycle.UnitsPerHold)
			if v.Sold != stock || v.Stock != 0 || v.Oversold != 0 || v.LostUpdates != 0 || v.Duplicates != 0 || v.Violations != 0 {
				t.Errorf("the database's truth is not exact: %+v stock %d", v.Stats, v.Stock)
			}
			for k, n := range keyOrders {
				if n > 1 {
					t.Errorf("key %s made %d orders", k, n)
				}
			}
			rows := orderIDs(t, store, sale.ID)
			if len(rows) != len(told) {
				t.Errorf("%d rows but %d buyers told they ordered", len(rows), len(told))
			}
			for _, id := range rows {
				if !told[id] {
					t.Errorf("order %d has a row but its buyer was not told", id)
				}
			}
			if v.LockCycle.Orders != v.Sold {
				t.Errorf("the sections count %d orders, the database %d", v.LockCycle.Orders, v.Sold)
			}
		})
	}
}

// TestCombinedBatchGathers: while the sale's lock is held elsewhere, the
// buyers arriving on a replica wait in its combiner; once the lock is free
// one acquisition sells them together, and the section records the batch.
func TestCombinedBatchGathers(t *testing.T) {
	store, lockers, svc := newService(t, "combine-gather")
	sale := combinedSale(t, sale.New(store.DB(), lockers, svc), "redis", 100, 100, 0, true)
	ctx := context.Background()
	inst, err := lockers.Get(sale.Strategy, order.LockOptions(sale))
	if err != nil {
		t.Fatal(err)
	}
	held, err := inst.Locker.Lock(ctx, svc.LockKey(sale.ID))
	if err != nil {
		t.Fatal(err)
	}
	const buyers = 40
	errs := make(chan error, buyers)
	for u := range buyers {
		go func() {
			_, err := svc.Place(ctx, sale.ID, fmt.Sprintf("g%d", u))
			errs <- err
		}()
	}
	// The first batch takes the buyers there when it starts and waits for
	// the lock; every later one waits behind it. Once all 40 are in one or
	// the other, the lock comes free: the waiting ones go in one batch.
	var waiting, first int
	testenv.WaitFor(t, 30*time.Second, "all the buyers waiting in the combiner or its first batch", func() bool {
		waiting, first = svc.CombineWaiting(sale.ID)
		return waiting+first == buyers
	})
	if err := held.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	for range buyers {
		if err := <-errs; err != nil {
			t.Errorf("a buyer: %v", err)
		}
	}
	v := settledView(t, store, svc, sale.ID)
	biggest := 0
	for _, s := range sections(t, store, sale.ID) {
		biggest = max(biggest, s.BatchBuyers)
		if s.BatchOrders > s.BatchBuyers {
			t.Errorf("a section made %d orders for %d buyers", s.BatchOrders, s.BatchBuyers)
		}
	}
	t.Logf("%d in the first batch, %d waiting when the lock came free; %d sections, biggest batch %d, %.1f units per hold; sold %d",
		first, waiting, v.LockCycle.Sections, biggest, v.LockCycle.UnitsPerHold, v.Sold)
	holds := int64(1) // the first batch, then the waiting ones' if any
	if waiting > 0 {
		holds = 2
	}
	if biggest != max(first, waiting) || v.LockCycle.Sections != holds || v.Sold != buyers || v.LostUpdates != 0 || v.Violations != 0 {
		t.Errorf("the first batch (%d) and the %d buyers waiting must be sold in %d holds (biggest %d, %d sections), all %d units with nothing lost: %+v",
			first, waiting, holds, biggest, v.LockCycle.Sections, buyers, v.Stats)
	}
}

// TestCombinedStaleBatchFencedWhole: a batch of three stalls past its lock's
// TTL (db-lock-table, 300 ms); a buyer on another replica takes the expired
// lock and buys. The stale batch's one write is refused by the fence, for
// all three buyers: nothing of it lands, and one fenced write is counted.
func TestCombinedStaleBatchFencedWhole(t *testing.T) {
	store, lockers, svcA := newService(t, "combine-fence-a")
	svcB := newReplica(t, "combine-fence-b")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svcA), sale.Spec{Name: new("combine fence"), Strategy: new("db-lock-table"),
		Stock: new(int64(10)), TTLMS: new(int64(300)), Fencing: new(true), PerUserLimit: new(int64(1)), Combine: new(true),
		CombineMaxBatch: new(int64(10)), CombineMaxWaitUS: new(int64(0))})
	// buyer-0's batch of one stalls 3 s inside its section; three buyers
	// arrive meanwhile and wait in the combiner: the next batch.
	first := stallBuyer(t, svcA, sale.ID, "buyer-0", 3*time.Second, 1)
	batch := make(chan error, 3)
	for i := 1; i <= 3; i++ {
		go func() {
			_, err := svcA.Place(ctx, sale.ID, fmt.Sprintf("buyer-%d", i))
			batch <- err
		}()
	}
	testenv.WaitFor(t, 30*time.Second, "three buyers waiting behind buyer-0's batch", func() bool {
		waiting, _ := svcA.CombineWaiting(sale.ID)
		return waiting == 3
	})
	points(svcA).PauseNextSection(6 * time.Second) // the batch of three stalls past its TTL
	if len(first) > 0 {
		t.Fatal("buyer-0 was done before the three had gathered: the interleaving was not built (a machine stalled for 3 s?)")
	}
	if err := <-first; err != nil {
		t.Fatalf("buyer-0: %v", err)
	}
	testenv.WaitFor(t, 30*time.Second, "the batch of three stalled inside its section", func() bool {
		return points(svcA).Stalled() == 1
	})
	var errB error
	for range 5 { // B's own 300 ms lease may lapse on a loaded machine (lock_lost, nothing written)
		if _, errB = svcB.Place(ctx, sale.ID, "buyer-B"); !errors.Is(errB, order.ErrLockLost) {
			break
		}
	}
	if errB != nil {
		t.Fatalf("buyer-B: %v", errB)
	}
	for range 3 {
		if err := <-batch; !errors.Is(err, order.ErrFenced) {
			t.Errorf("a buyer of the stale batch: %v, want fenced", err)
		}
	}
	svcB.Flush()
	v := settledView(t, store, svcA, sale.ID)
	t.Logf("sold %d stock %d lost %d fenced writes %d violations %d", v.Sold, v.Stock, v.LostUpdates, v.FencedWrites, v.Violations)
	if v.Sold != 2 || v.Stock != 8 || v.LostUpdates != 0 || v.FencedWrites != 1 {
		t.Errorf("the stale batch must be refused whole and counted once: %+v stock %d", v.Stats, v.Stock)
	}
}

// orderIDs is the sale's order ids, from the database.
func orderIDs(t *testing.T, store *inventory.Store, saleID uint64) []uint64 {
	t.Helper()
	var ids []uint64
	if err := store.DB().Raw("SELECT id FROM orders WHERE sale_id = ?", saleID).Scan(&ids).Error; err != nil {
		t.Fatal(err)
	}
	return ids
}

// sections is the sale's recorded critical sections.
func sections(t *testing.T, store *inventory.Store, saleID uint64) []sectionlog.Section {
	t.Helper()
	var out []sectionlog.Section
	if err := store.DB().Where("sale_id = ?", saleID).Find(&out).Error; err != nil {
		t.Fatal(err)
	}
	return out
}
