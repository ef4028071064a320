package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// buyAll lets buyers buy one unit each at once on a new sale of stock 3
// (work_ms 20 widens the race) and returns the sale's recorded history.
func buyAll(t *testing.T, strategy string, buyers int) (inventory.SaleView, []history.Op) {
	t.Helper()
	store, lockers, svc := newService(t, "hist")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("history " + strategy), Strategy: &strategy,
		Stock: new(int64(3)), WorkMS: new(int64(20)), TTLMS: new(int64(5000)), Fencing: new(true), PerUserLimit: new(int64(1))})
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Place(ctx, sale.ID, fmt.Sprint("h", i))
			if err != nil && !errors.Is(err, order.ErrSoldOut) {
				t.Errorf("buyer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	view := settledView(t, store, svc, sale.ID)
	ops, err := history.Load(ctx, testenv.Backends(t, "order").DB, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != buyers {
		t.Fatalf("%d requests answered, %d recorded", buyers, len(ops))
	}
	return view, ops
}

func TestOversoldNoneSaleIsNotLinearizable(t *testing.T) {
	view, ops := buyAll(t, "none", 8)
	if view.Oversold == 0 {
		t.Fatalf("none did not oversell (sold %d of 3): the race did not happen", view.Sold)
	}
	r := history.Check(ops, 3, 5*time.Second)
	t.Logf("%s: %s", r.Verdict, r.Message.En)
	if r.Verdict != history.NotLinearizable || len(r.Witness) != 4 {
		t.Fatalf("an oversold sale: got %s with %d witnesses, want not_linearizable with 4", r.Verdict, len(r.Witness))
	}
	for _, w := range r.Witness {
		if w.Outcome != history.OK || w.OrderID == nil {
			t.Fatalf("a witness of an oversell is an ok answer with its order: %+v", w)
		}
	}
}

func TestRedisSaleIsLinearizable(t *testing.T) {
	view, ops := buyAll(t, "redis", 8)
	if view.Sold != 3 {
		t.Fatalf("sold %d of 3", view.Sold)
	}
	r := history.Check(ops, 3, 5*time.Second)
	if r.Verdict != history.Linearizable || r.Operations != 8 {
		t.Fatalf("a redis sale: got %s over %d: %s", r.Verdict, r.Operations, r.Message.En)
	}
}
