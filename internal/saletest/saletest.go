// Package saletest makes the sales tests need as the shop makes them:
// through sale.Service.Create, with the same validation, defaults and
// combining choice, and, for a strategy that keeps its stock in Redis
// (redis-lua-stock), that stock loaded under the order service's key.
//
//   - Make creates a sale from a sale.Spec, failing the test on error.
//   - Service is a sale.Service over given backends, for a test that has
//     no order service of its own; KeyFunc names stock keys a test's way.
//
// A test that needs a sale the service would refuse (an unknown strategy,
// a row broken on purpose) writes it with inventory.Store.CreateSale and
// says why.
package saletest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy the shop knows
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Make creates the sale spec describes through sales, as POST /api/sales
// does, and fails tb on any error (a refused spec included).
func Make(tb testing.TB, sales *sale.Service, spec sale.Spec) inventory.Sale {
	tb.Helper()
	s, err := sales.Create(context.Background(), spec)
	if err != nil {
		tb.Fatalf("making a sale: %v", err)
	}
	return s
}

// Service is a sale.Service over b with lock instances of its own, closed
// at cleanup. keys names the stock key of a sale whose strategy keeps its
// stock in Redis; nil names it as an order service over b.DB does.
func Service(tb testing.TB, b lockstrategy.Backends, keys sale.LockKeyer) *sale.Service {
	tb.Helper()
	lockers := lockstrategy.NewInstances(b)
	tb.Cleanup(func() { lockers.Close() })
	if keys == nil {
		orders := order.NewService(order.Config{ReplicaID: "saletest"}, inventory.NewStore(b.DB), lockers, nil,
			slog.New(slog.NewTextHandler(io.Discard, nil)))
		tb.Cleanup(orders.Close)
		keys = orders
	}
	return sale.New(b.DB, lockers, keys)
}

// KeyFunc is a sale.LockKeyer made of a function: a test's own keyspace.
type KeyFunc func(saleID uint64) string

// LockKey is f(saleID).
func (f KeyFunc) LockKey(saleID uint64) string { return f(saleID) }
