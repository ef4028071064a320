package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// unsafeOnOneReplica lists the strategies that break the sale even on one
// replica with no fault injected.
var unsafeOnOneReplica = map[string]bool{"none": true, "db-pessimistic-autocommit": true}

const (
	buyers    = 64
	saleStock = 50
	workMS    = 2 // > 0: widens the read-modify-write window so `none` reliably races
)

// TestSaleInvariantsPerStrategy: 64 concurrent buyers on a sale of 50, per
// strategy, one replica; the result is read back from the database.
// The strategies sell side by side (each its own sale): most of a
// strategy's time is its buyers waiting for its lock, and one after the
// other they took 80 s of make test.
func TestSaleInvariantsPerStrategy(t *testing.T) {
	store, lockers, svc := newService(t, "test")

	for _, name := range lockstrategy.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			view := runSale(t, store, lockers, svc, name)
			t.Logf("%s: sold %d, stock %d, oversold %d, lost updates %d, violations %d",
				name, view.Sold, view.Stock, view.Oversold, view.LostUpdates, view.Violations)
			if unsafeOnOneReplica[name] {
				if view.Oversold == 0 && view.LostUpdates == 0 {
					t.Fatalf("%s neither oversold nor lost an update: the race it exists to show did not happen", name)
				}
				if view.Violations == 0 {
					t.Fatalf("%s raced but the violation detector saw no overlapping sections", name)
				}
				return
			}
			if view.Sold != saleStock || view.Stock != 0 || view.Oversold != 0 || view.LostUpdates != 0 || view.Violations != 0 {
				t.Fatalf("%s broke the sale: sold %d (want %d), stock %d, oversold %d, lost updates %d, violations %d",
					name, view.Sold, saleStock, view.Stock, view.Oversold, view.LostUpdates, view.Violations)
			}
		})
	}
}

// runSale creates a sale and lets 64 buyers buy until sold out.
func runSale(t *testing.T, store *inventory.Store, lockers *lockstrategy.Instances, svc *order.Service, strategy string) inventory.SaleView {
	t.Helper()
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("test " + strategy), Strategy: &strategy,
		Stock: new(int64(saleStock)), WorkMS: new(int64(workMS)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(1))})
	var user atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, buyers)
	// No fixed budget (a loaded machine sells slowly, and the strategies run
	// side by side): the sale is stuck only when no order went through for
	// a whole stallFor.
	const stallFor = 60 * time.Second
	var sold atomic.Int64 // unix nanoseconds of the last order
	sold.Store(time.Now().UnixNano())
	for range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(time.Unix(0, sold.Load())) < stallFor {
				_, err := svc.Place(ctx, sale.ID, fmt.Sprint("u", user.Add(1)))
				if err == nil {
					sold.Store(time.Now().UnixNano())
				}
				switch {
				case errors.Is(err, order.ErrSoldOut):
					return
				case err == nil, errors.Is(err, order.ErrConflict), errors.Is(err, order.ErrFenced),
					errors.Is(err, order.ErrLockTimeout), errors.Is(err, order.ErrLockLost):
					continue // retryable: a buyer tries again
				default:
					errs <- err
					return
				}
			}
			errs <- fmt.Errorf("no order went through for %v, and the sale is not sold out", stallFor)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("%s: %v", strategy, err)
	}
	return settledView(t, store, svc, sale.ID)
}
