package order_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/eventlog"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Seed 002's aggressive policy is the holder's choice: the lease of
// redis-aggressive signals its loss as redis's does (Lost closes, lease
// event lost), and the order flow's check before the write, seeing it,
// writes anyway because the strategy's policy says to go on, and records
// that it did (lease event went_on, after lost, on the same token).
func TestAggressivePolicyWritesKnowingly(t *testing.T) {
	store, lockers, svc := newService(t, "aggressive")
	rdb := testenv.Redis(t)
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("aggressive"), Strategy: new("redis-aggressive"),
		Stock: new(int64(10)), TTLMS: new(int64(900)), PerUserLimit: new(int64(0))})
	points(svc).SlowNextSection(4 * time.Second)
	done := make(chan error, 1)
	go func() { _, err := svc.Place(ctx, sale.ID, "A"); done <- err }()
	testenv.WaitFor(t, 10*time.Second, "A inside its slow work", func() bool { return points(svc).Stalled() == 1 })
	if err := rdb.Del(ctx, svc.LockKey(sale.ID)).Err(); err != nil { // the lock is gone under A
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("A, whose policy goes on after a lost lease: %v, want its order", err)
	}
	if v := settledView(t, store, svc, sale.ID); v.Sold != 1 || v.Stock != 9 {
		t.Fatalf("A did not write: sold %d stock %d", v.Sold, v.Stock)
	}
	var events []eventlog.Lease
	if err := store.DB().Where("sale_id = ?", sale.ID).Order("at, id").Find(&events).Error; err != nil {
		t.Fatal(err)
	}
	lost := slices.IndexFunc(events, func(e eventlog.Lease) bool { return e.Event == lockstrategy.LeaseLost })
	if lost < 0 {
		t.Fatalf("no lease event lost: the lease did not signal its loss (events %+v)", events)
	}
	wentOn := slices.IndexFunc(events, func(e eventlog.Lease) bool { return e.Event == lockstrategy.LeaseWentOn })
	switch {
	case wentOn < 0:
		t.Fatalf("no lease event went_on: the holder's knowing go-on was not recorded (events %+v)", events)
	case wentOn < lost || events[wentOn].Token != events[lost].Token:
		t.Fatalf("went_on %+v is not after lost %+v on the same token", events[wentOn], events[lost])
	}
}

// The conservative strategy never goes on: no went_on beside its lock_lost
// (TestSlowWorkStopsOnALostLease checks that it stops).
func TestOnlyTheAggressivePolicyGoesOn(t *testing.T) {
	for name, want := range map[string]bool{"redis": false, "redis-aggressive": true} {
		s, err := lockstrategy.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.GoesOnWhenLost != want {
			t.Errorf("%s: GoesOnWhenLost %v, want %v", name, s.GoesOnWhenLost, want)
		}
	}
}
