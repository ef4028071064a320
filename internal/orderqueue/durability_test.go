package orderqueue_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/reconcile"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// The stream's Redis crashes (SIGKILL) with 20 orders queued and no
// consumer yet. With appendfsync always every 202 becomes an order; without
// persistence all 20 are lost, the reconciliation finds the stock lost, and
// its repair rebuilds it from the database: nothing oversold either way.
func TestDurabilityAcrossARedisCrash(t *testing.T) {
	for _, mode := range []string{orderqueue.DurabilityAlways, orderqueue.DurabilityNone} {
		t.Run(mode, func(t *testing.T) {
			rp := testenv.NewRedisProcess(t)
			rp.Start()
			rdb := redis.NewClient(&redis.Options{Addr: rp.Addr})
			t.Cleanup(func() { rdb.Close() })
			ctx := context.Background()
			if err := orderqueue.SetDurability(ctx, rdb, mode); err != nil {
				t.Fatal(err)
			}
			if got, err := orderqueue.Durability(ctx, rdb); err != nil || got != mode {
				t.Fatalf("durability %q %v, want %q", got, err, mode)
			}
			l := newLab(t, rdb)
			s := l.newSale("redis-lua-stock", 20, inventory.OrderAsync, 0)
			tickets := l.herd(s.ID, 20, func(i int) string { return mode + strconv.Itoa(i) })
			rp.Kill()
			rp.Start()
			if got, _ := orderqueue.Durability(ctx, rdb); got != mode {
				t.Fatalf("after the restart the durability is %q, want %q (kept in the config file)", got, mode)
			}
			l.consumer("c-"+mode, 2*time.Second)
			if mode == orderqueue.DurabilityAlways {
				l.drained(s.ID)
				if n := l.states(tickets); n[orderqueue.StateConfirmed] != 20 {
					t.Fatalf("ticket states %v after the crash, want all 20 confirmed", n)
				}
				l.checkTruth(s)
				return
			}
			if n := l.states(tickets); n["lost"] != 20 {
				t.Fatalf("ticket states %v after the crash without persistence, want all 20 lost", n)
			}
			inst, err := l.lockers.Get(s.Strategy, lockstrategy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			st, _ := lockstrategy.As[reconcile.Store](inst)
			before, after, repaired, err := reconcile.Repair(ctx, l.b.DB, st, l.orders.LockKey(s.ID), s.ID)
			if err != nil || !repaired || before.StoreStock != -1 || after.StoreStock != 20 || after.Drift != 0 {
				t.Fatalf("repair: before %+v after %+v repaired %v %v; want the lost stock rebuilt to 20", before, after, repaired, err)
			}
			again := l.herd(s.ID, 20, func(i int) string { return "again" + strconv.Itoa(i) })
			l.drained(s.ID)
			if v := l.checkTruth(s); len(again) != 20 || v.Sold != 20 {
				t.Fatalf("after the rebuild: %d tickets, sold %d; want 20 and 20", len(again), v.Sold)
			}
		})
	}
}

// A stock that drifted (a DECR lost, here put back by hand) is reported
// with its size and sign, and the repair moves Redis's stock by exactly
// that, orders in flight or not.
func TestReconcileReportsAndRepairsDrift(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 10, inventory.OrderAsync, 0)
	_, stop := l.consumer("c-drift-1", 2*time.Second)
	l.buyAll(s, 3, "d") // drained
	stop()
	l.herd(s.ID, 2, func(i int) string { return "inflight" + strconv.Itoa(i) })
	ctx := context.Background()
	key := l.orders.LockKey(s.ID)
	l.b.Redis.IncrBy(ctx, redisstock.KeysOf(key).Stock, 2) // Redis now admits 2 units the database does not have
	inst, _ := l.lockers.Get(s.Strategy, lockstrategy.Options{})
	st, _ := lockstrategy.As[reconcile.Store](inst)
	r, err := reconcile.Check(ctx, l.b.DB, st, key, s.ID)
	if err != nil || r.Drift != -2 || r.InFlight != 2 {
		t.Fatalf("check: %+v %v, want drift -2 with 2 in flight", r, err)
	}
	before, after, repaired, err := reconcile.Repair(ctx, l.b.DB, st, key, s.ID)
	if err != nil || !repaired || before.Drift != -2 || after.Drift != 0 {
		t.Fatalf("repair: %+v -> %+v %v %v", before, after, repaired, err)
	}
	l.consumer("c-drift-2", 2*time.Second)
	l.drained(s.ID)
	for i := 0; ; i++ {
		_, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "rest" + strconv.Itoa(i)})
		if errors.Is(err, order.ErrSoldOut) {
			break
		}
		if err != nil || i > 10 {
			t.Fatalf("buying the rest: %v after %d", err, i)
		}
	}
	l.drained(s.ID)
	if v := l.checkTruth(s); v.Sold != 10 {
		t.Fatalf("sold %d, want 10", v.Sold)
	}
}

// A Redis that loses its last writes (an everysec restart) can lose an
// expired order's return, its marker included, after the database noted the
// unit back: the units then sell in neither store. The check must see that
// as drift rather than as a return still to come, and the repair restore it.
func TestReconcileSeesALostReturn(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 3, inventory.OrderSync, 500)
	ctx := context.Background()
	refs := l.buyAll(s, 2, "lr")
	testenv.WaitFor(t, 30*time.Second, "both reservations to expire and come back", func() bool {
		_, _ = l.orders.ExpireDue(ctx, 50)
		r, _ := l.store.Reservations(ctx, s.ID)
		return r.Expired == 2 && r.Returned == 2
	})
	key := l.orders.LockKey(s.ID)
	keys := redisstock.KeysOf(key)
	l.b.Redis.SRem(ctx, keys.Returned, refs[0]) // what the lost write had done
	l.b.Redis.Decr(ctx, keys.Stock)
	inst, _ := l.lockers.Get(s.Strategy, lockstrategy.Options{})
	st, _ := lockstrategy.As[reconcile.Store](inst)
	r, err := reconcile.Check(ctx, l.b.DB, st, key, s.ID)
	if err != nil || r.Drift != 1 || r.LostReturns != 1 || r.StoreStock != 2 || r.DBStock != 3 {
		t.Fatalf("check: %+v %v, want drift 1 from one lost return (Redis 2, database 3)", r, err)
	}
	if _, after, repaired, err := reconcile.Repair(ctx, l.b.DB, st, key, s.ID); err != nil || !repaired || after.Drift != 0 || after.StoreStock != 3 {
		t.Fatalf("repair: %+v %v %v, want Redis back to 3", after, repaired, err)
	}
}
