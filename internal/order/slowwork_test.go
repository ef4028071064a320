package order_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// The renewal-fails lesson's fault: a holder in a long business step
// (slow_work) whose lock is lost meanwhile (its key gone, as after a Redis
// restart) is told by the watchdog's failed renewal (Lost), and the check
// before the write stops it: ErrLockLost, nothing written.
func TestSlowWorkStopsOnALostLease(t *testing.T) {
	store, lockers, svc := newService(t, "slowwork")
	rdb := testenv.Redis(t)
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("slow"), Strategy: new("redis"),
		Stock: new(int64(10)), TTLMS: new(int64(900)), Watchdog: new(false), PerUserLimit: new(int64(0))})
	points(svc).SlowNextSection(4 * time.Second)
	done := make(chan error, 1)
	go func() { _, err := svc.Place(ctx, sale.ID, "A"); done <- err }()
	testenv.WaitFor(t, 10*time.Second, "A inside its slow work", func() bool { return points(svc).Stalled() == 1 })
	if err := rdb.Del(ctx, svc.LockKey(sale.ID)).Err(); err != nil { // the lock is gone under A
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, order.ErrLockLost) {
		t.Fatalf("A after losing its lock in the middle of its work: %v, want ErrLockLost", err)
	}
	svc.Flush()
	got, _ := store.GetSale(ctx, sale.ID)
	if v, err := store.View(ctx, got); err != nil || v.Sold != 0 || v.Stock != 10 {
		t.Fatalf("A wrote after losing its lock: %+v %v", v, err)
	}
}
