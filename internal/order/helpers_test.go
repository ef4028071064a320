package order_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// newService builds an order service over the real services (database
// seckill_test_order), closed at cleanup, for tests and benchmarks alike.
func newService(tb testing.TB, replica string) (*inventory.Store, *lockstrategy.Instances, *order.Service) {
	tb.Helper()
	b := testenv.Backends(tb, "order")
	pts := &faultpoint.Points{}
	b.Faults = pts
	store := inventory.NewStore(b.DB)
	lockers := lockstrategy.NewInstances(b)
	tb.Cleanup(func() { lockers.Close() })
	svc := order.NewService(order.Config{ReplicaID: replica, Faults: pts}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(svc.Close)
	faultsOf.Store(svc, pts)
	return store, lockers, svc
}

// settledView is a sale's truth from the database once svc has written its
// queued critical sections (so that the violations are exact).
func settledView(tb testing.TB, store *inventory.Store, svc *order.Service, saleID uint64) inventory.SaleView {
	tb.Helper()
	ctx := context.Background()
	svc.Flush()
	sale, err := store.GetSale(ctx, saleID)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := store.View(ctx, sale)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// newReplica is a second order service on the same database as newService's,
// with lock instances of its own (a ZooKeeper session, a mutex table): a
// second replica of the shop.
func newReplica(tb testing.TB, replica string) *order.Service {
	tb.Helper()
	b := testenv.Backends(tb, "order")
	pts := &faultpoint.Points{}
	b.Faults = pts
	lockers := lockstrategy.NewInstances(b)
	tb.Cleanup(func() { lockers.Close() })
	svc := order.NewService(order.Config{ReplicaID: replica, Faults: pts}, inventory.NewStore(b.DB), lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(svc.Close)
	faultsOf.Store(svc, pts)
	return svc
}

// faultsOf holds the fault points of each service newService, newReplica
// and cutService made (the road's hooks, as cmd/shop gives a replica its
// own when faults are on).
var faultsOf sync.Map // *order.Service -> *faultpoint.Points

// points are svc's fault points.
func points(svc *order.Service) *faultpoint.Points {
	v, _ := faultsOf.Load(svc)
	return v.(*faultpoint.Points)
}
