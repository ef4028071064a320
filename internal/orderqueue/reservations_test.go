package orderqueue_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/reconcile"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Unpaid reservations expire and their units go back exactly once, in the
// database and in Redis, however many replicas expire at the same time;
// paying after the expiry is refused; the units sell again, and nothing is
// oversold. For a queued sale, a Redis stock of a synchronous one, and a
// locked strategy (whose expiry takes the lock).
func TestReservationsExpireOnce(t *testing.T) {
	for _, c := range []struct{ strategy, mode string }{
		{"redis-lua-stock", inventory.OrderAsync}, {"redis-lua-stock", inventory.OrderSync}, {"db-pessimistic", inventory.OrderSync},
	} {
		t.Run(c.strategy+"/"+c.mode, func(t *testing.T) {
			l := newLab(t, nil)
			other := newLab(t, nil) // a second replica expiring the same reservations
			s := l.newSale(c.strategy, 4, c.mode, 500)
			l.consumer("c-"+c.strategy+c.mode, 2*time.Second)
			ctx := context.Background()
			refs := l.buyAll(s, 4, "r")
			if _, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "late"}); !errors.Is(err, order.ErrSoldOut) {
				t.Fatalf("a fifth buyer: %v, want sold out", err)
			}
			// Both replicas expire, side by side, until the four are gone.
			testenv.WaitFor(t, 30*time.Second, "the four unpaid reservations to expire", func() bool {
				var wg sync.WaitGroup
				for _, svc := range []*order.Service{l.orders, other.orders} {
					wg.Add(1)
					go func() { defer wg.Done(); _, _ = svc.ExpireDue(ctx, 50) }()
				}
				wg.Wait()
				r, _ := l.store.Reservations(ctx, s.ID)
				return r.Expired == 4 && r.Returned == 4
			})
			if _, err := l.orders.Pay(ctx, refs[2], "r2"); !errors.Is(err, order.ErrReservationExpired) {
				t.Fatalf("paying after the expiry: %v, want ErrReservationExpired", err)
			}
			// Exactly the four units are back: four new buyers get them, a fifth does not.
			l.buyAll(s, 4, "n")
			if _, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "late2"}); !errors.Is(err, order.ErrSoldOut) {
				t.Fatalf("a fifth buyer after the expiry: %v, want sold out", err)
			}
			v := l.checkStock(s)
			if v.Sold != 4 || v.Stock != 0 {
				t.Fatalf("sold %d stock %d after the units sold again, want 4 and 0", v.Sold, v.Stock)
			}
		})
	}
}

// A paid reservation is sold for good: paying is for its buyer only,
// paying again answers the same order, and a due expiry passes it by.
func TestPaidReservationStays(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 2, inventory.OrderAsync, 3_600_000)
	l.consumer("c-paid", 2*time.Second)
	ctx := context.Background()
	refs := l.buyAll(s, 1, "p")
	if _, err := l.orders.Pay(ctx, refs[0], "someone"); !errors.Is(err, order.ErrNotYourOrder) {
		t.Fatalf("paying another's order: %v, want ErrNotYourOrder", err)
	}
	paid, err := l.orders.Pay(ctx, refs[0], "p0")
	if err != nil || paid.Status != inventory.StatusPaid || paid.PaidAt == nil {
		t.Fatalf("paying: %+v %v", paid, err)
	}
	if again, err := l.orders.Pay(ctx, refs[0], "p0"); err != nil || again.ID != paid.ID || again.Status != inventory.StatusPaid {
		t.Fatalf("paying again: %+v %v", again, err)
	}
	l.b.DB.Exec("UPDATE orders SET pay_by = NOW(6) - INTERVAL 1 HOUR WHERE id = ?", paid.ID) // long due
	if _, err := l.orders.ExpireDue(ctx, 50); err != nil {
		t.Fatal(err)
	}
	if o, err := l.orders.Resolve(ctx, refs[0]); err != nil || o.Status != inventory.StatusPaid {
		t.Fatalf("the paid order after a due expiry: %+v %v", o, err)
	}
	if v := l.checkTruth(s); v.Sold != 1 || v.Stock != 1 {
		t.Fatalf("sold %d stock %d, want 1 and 1", v.Sold, v.Stock)
	}
}

// buyAll buys n units of s for users prefix0.. and returns each order's
// reference (its ticket for a queued order, once the order exists).
func (l *lab) buyAll(s inventory.Sale, n int, prefix string) []string {
	l.t.Helper()
	ctx := context.Background()
	refs := make([]string, n)
	for i := range refs {
		o, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: prefix + strconv.Itoa(i)})
		if err != nil {
			l.t.Fatal(err)
		}
		refs[i] = strconv.FormatUint(o.ID, 10)
		if o.Status == inventory.StatusPending {
			refs[i] = *o.OrderTicket
		}
	}
	if s.OrderMode == inventory.OrderAsync {
		l.drained(s.ID)
	}
	return refs
}

// checkStock is checkTruth for any strategy: the database's invariants,
// and the reconciliation where the strategy keeps a stock in Redis.
func (l *lab) checkStock(s inventory.Sale) inventory.SaleView {
	l.t.Helper()
	if s.Strategy == "redis-lua-stock" {
		return l.checkTruthAnyMode(s)
	}
	ctx := context.Background()
	got, _ := l.store.GetSale(ctx, s.ID)
	l.orders.Flush()
	v, err := l.store.View(ctx, got)
	if err != nil {
		l.t.Fatal(err)
	}
	if v.Oversold != 0 || v.LostUpdates != 0 || v.Duplicates != 0 || v.Violations != 0 {
		l.t.Fatalf("sale %d: %+v", s.ID, v.Stats)
	}
	return v
}

// An expiry whose Redis has no stock for the sale (lost, and not rebuilt
// yet; or a replica whose Redis is not the sale's) must not note the unit
// back: the database then says "returned" for a unit no Redis counts. The
// return stays due until a rebuild, which counts it, and then completes.
func TestReturnWithoutAStockWaitsForTheRebuild(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 2, inventory.OrderSync, 500)
	ctx := context.Background()
	l.buyAll(s, 1, "nr")
	key := l.orders.LockKey(s.ID)
	l.b.Redis.Del(ctx, redisstock.KeysOf(key).Stock) // lost with a restart, no order since to rebuild it
	testenv.WaitFor(t, 30*time.Second, "the reservation to expire", func() bool {
		_, _ = l.orders.ExpireDue(ctx, 50)
		r, _ := l.store.Reservations(ctx, s.ID)
		return r.Expired == 1
	})
	if r, _ := l.store.Reservations(ctx, s.ID); r.Returned != 0 {
		t.Fatalf("%+v: the unit is noted back though no Redis stock took it", r)
	}
	inst, _ := l.lockers.Get(s.Strategy, lockstrategy.Options{})
	if _, _, _, err := reconcile.Repair(ctx, l.b.DB, inst.Reserver.(reconcile.Store), key, s.ID); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 30*time.Second, "the due return to complete after the rebuild", func() bool {
		_, _ = l.orders.ExpireDue(ctx, 50)
		r, _ := l.store.Reservations(ctx, s.ID)
		return r.Returned == 1
	})
	if v := l.checkTruth(s); v.Stock != 2 {
		t.Fatalf("stock %d, want 2", v.Stock)
	}
}
