package order_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// The reentrancy lesson's fault: the next section takes its own lock again.
// On redis (not reentrant) the nested Lock waits for the lock its own order
// holds until its bound: ErrNestedLock, nothing written, and the lock is
// freed (the next order is served). On redisson the same order takes it
// again (a hold count of 2), buys, and frees it on its last unlock. The
// same on the database's lock table: db-lock-table-plain waits for its own
// row, db-lock-table counts the hold in the row.
func TestNestedLock(t *testing.T) {
	store, lockers, svc := newService(t, "nested")
	ctx := context.Background()
	for _, tc := range []struct {
		strategy  string
		reentrant bool
	}{{"redis", false}, {"redisson", true}, {"db-lock-table-plain", false}, {"db-lock-table", true}} {
		sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("nested"), Strategy: &tc.strategy,
			Stock: new(int64(10)), PerUserLimit: new(int64(0)), Watchdog: sale.LenientWatchdog(tc.strategy, false)})
		points(svc).NestNextSection(time.Second)
		_, err := svc.Place(ctx, sale.ID, "A")
		if tc.reentrant && err != nil {
			t.Fatalf("%s: the nested lock of a reentrant lock failed: %v", tc.strategy, err)
		}
		if !tc.reentrant && !errors.Is(err, order.ErrNestedLock) {
			t.Fatalf("%s: nested lock: %v, want ErrNestedLock", tc.strategy, err)
		}
		// The lock is free again: the next order does not wait for it.
		if _, err := svc.Place(ctx, sale.ID, "B"); err != nil {
			t.Fatalf("%s: the order after the nested one: %v", tc.strategy, err)
		}
		svc.Flush()
		got, _ := store.GetSale(ctx, sale.ID)
		v, err := store.View(ctx, got)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(1)
		if tc.reentrant {
			want = 2
		}
		if v.Sold != want || v.Stock != 10-want || v.Violations != 0 {
			t.Errorf("%s: sold %d stock %d violations %d, want sold %d", tc.strategy, v.Sold, v.Stock, v.Violations, want)
		}
	}
}
