package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// TestWatchdog: a redis lock with a TTL (450 ms: 300 ms of slack for a
// renewal every ttl/3 on a loaded machine) shorter than the work (1200 ms),
// 4 concurrent buyers. Without the watchdog every lease expires
// while held and the next waiter walks in: the detector sees overlapping
// sections. With it the leases are renewed and the sections stay serial.
func TestWatchdog(t *testing.T) {
	store, lockers, svc := newService(t, "watchdog")
	const buyers, stock = 4, 20

	for _, watchdog := range []bool{false, true} {
		ctx := context.Background()
		sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("watchdog"), Strategy: new("redis"),
			Stock: new(int64(stock)), WorkMS: new(int64(1200)), TTLMS: new(int64(450)), Watchdog: &watchdog, PerUserLimit: new(int64(1))})
		if got := order.LockOptions(sale); got.NoRenewal == watchdog {
			t.Fatalf("watchdog=%v: lock options %+v", watchdog, got)
		}
		// One attempt per buyer: bounded (at most 4 serial sections of
		// 1200 ms), and enough to show both directions.
		var wg sync.WaitGroup
		var mu sync.Mutex
		var orders int64
		outcomes := map[string]int{}
		for i := range buyers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Place(ctx, sale.ID, fmt.Sprintf("w%v-%d", watchdog, i))
				mu.Lock()
				defer mu.Unlock()
				outcomes[order.OutcomeOf(err)]++
				switch {
				case err == nil:
					orders++
				case errors.Is(err, order.ErrLockLost):
				default:
					t.Errorf("watchdog=%v: buyer %d: %v", watchdog, i, err)
				}
			}()
		}
		wg.Wait()
		svc.Flush()
		got, err := store.GetSale(ctx, sale.ID)
		if err != nil {
			t.Fatal(err)
		}
		v, err := store.View(ctx, got)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("watchdog=%v: outcomes %v; sold %d, stock %d, oversold %d, lost updates %d, violations %d",
			watchdog, outcomes, v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Violations)
		if got.Watchdog != watchdog {
			t.Errorf("the sale was stored with watchdog=%v, want %v", got.Watchdog, watchdog)
		}
		if !watchdog {
			if v.Violations == 0 {
				t.Errorf("without the watchdog the expired leases let holders overlap, but no violation was seen: %+v", v.Stats)
			}
			continue
		}
		if orders != buyers || v.Sold != orders || v.Stock != stock-buyers || v.Oversold != 0 ||
			v.LostUpdates != 0 || v.Violations != 0 {
			t.Errorf("with the watchdog every buyer must buy, one at a time: orders %d, %+v, stock %d", orders, v.Stats, v.Stock)
		}
	}
}
