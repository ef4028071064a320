package order_test

import (
	"context"
	"errors"
	"testing"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// TestLimitOfOneAnswersAsBefore: on the lock-free roads the limit of 1 is
// the INSERT's unique key, and the INSERT now comes before the stock write;
// the buyer's answers stay those of the write-first order of statements:
// sold out before a repeated idempotency key before the limit. The sale's
// database figures stay exact.
func TestLimitOfOneAnswersAsBefore(t *testing.T) {
	store, lockers, svc := newService(t, "limitone")
	for _, strategy := range []string{"db-conditional", "db-optimistic"} {
		t.Run(strategy, func(t *testing.T) {
			ctx := context.Background()
			s := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("limit one " + strategy),
				Strategy: &strategy, Stock: new(int64(2)), PerUserLimit: new(int64(1))})
			buy := func(user, key string) error {
				_, _, err := svc.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: user, IdempotencyKey: key})
				return err
			}
			steps := []struct {
				what, user, key string
				want            error
			}{
				{"ann's first order", "ann", "k1", nil},
				{"ann's retried request (same key)", "ann", "k1", order.ErrDuplicateRequest},
				{"ann's second order (new key)", "ann", "k2", order.ErrLimitReached},
				{"ann's second order (no key)", "ann", "", order.ErrLimitReached},
				{"bob's order, the last unit", "bob", "", nil},
				{"ann once sold out (new key)", "ann", "k3", order.ErrSoldOut},
				{"ann's retried request once sold out", "ann", "k1", order.ErrSoldOut},
				{"carol once sold out", "carol", "", order.ErrSoldOut},
			}
			for _, st := range steps {
				err := buy(st.user, st.key)
				if (st.want == nil && err != nil) || (st.want != nil && !errors.Is(err, st.want)) {
					t.Errorf("%s: %v, want %v", st.what, err, st.want)
				}
			}
			got, err := store.GetSale(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			v, err := store.View(ctx, got)
			if err != nil {
				t.Fatal(err)
			}
			if v.Sold != 2 || v.Stock != 0 || v.Duplicates != 0 || v.Oversold != 0 || v.LostUpdates != 0 {
				t.Errorf("sold %d, stock %d, duplicates %d, oversold %d, lost %d; want 2 sold, 0 left, nothing else",
					v.Sold, v.Stock, v.Duplicates, v.Oversold, v.LostUpdates)
			}
		})
	}
}
