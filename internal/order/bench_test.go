package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// BenchmarkSale sells 1,000 units to 64 concurrent buyers on one replica, per
// DB strategy and work_ms, and reports orders/s and the p50/p99 latency of a
// successful order (HDR histogram); beside them, at work_ms=0, the minimal
// shop (minimalShop): the database's limit for one order a transaction.
// One iteration is one whole sale:
//
//	go test -run '^$' -bench BenchmarkSale -benchtime 1x ./internal/order/
func BenchmarkSale(b *testing.B) {
	store, lockers, svc := newService(b, "bench")
	for _, workMS := range []int{0, 5} {
		for _, name := range []string{"db-optimistic", "db-pessimistic", "db-conditional", "db-lock-table", "redis-lua-stock", minimalShop} {
			if name == minimalShop && workMS > 0 {
				continue // it does no work
			}
			b.Run(fmt.Sprintf("%s/work_ms=%d", name, workMS), func(b *testing.B) {
				for range b.N {
					benchSale(b, store, lockers, svc, name, workMS)
				}
			})
		}
	}
}

// minimalShop is the order of a minimal shop, without our order flow:
// UPDATE sales SET stock = stock - 1 WHERE id = ? AND stock > 0, then the
// INSERT, in one transaction; no lock, limit, history nor section record.
const minimalShop = "minimal-shop"

// minimalOrder places one order of sale the minimal shop's way.
func minimalOrder(ctx context.Context, store *inventory.Store, sale inventory.Sale, user string) error {
	return store.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := inventory.DecrementIfAvailable(ctx, tx, sale.ID); err != nil {
			if errors.Is(err, inventory.ErrSoldOut) {
				return order.ErrSoldOut
			}
			return err
		}
		o := inventory.NewOrder(sale, user, "minimal", time.Now())
		return inventory.InsertOrder(ctx, tx, &o)
	})
}

func benchSale(b *testing.B, store *inventory.Store, lockers *lockstrategy.Instances, svc *order.Service, strategy string, workMS int) {
	const stock, buyers = 1000, 64
	ctx := context.Background()
	name := strategy
	if strategy == minimalShop {
		name = "db-conditional" // a name the sales table knows; minimalOrder never asks it
	}
	sale := saletest.Make(b, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("bench"), Strategy: &name,
		Stock: new(int64(stock)), WorkMS: new(int64(workMS)), TTLMS: new(int64(10000)), PerUserLimit: new(int64(0))})
	place := func(user string) error { _, err := svc.Place(ctx, sale.ID, user); return err }
	if strategy == minimalShop {
		place = func(user string) error { return minimalOrder(ctx, store, sale, user) }
	}
	hist := hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)
	var mu sync.Mutex
	var user, refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t0 := time.Now()
				err := place(fmt.Sprint("u", user.Add(1)))
				if errors.Is(err, order.ErrSoldOut) {
					return
				}
				if err != nil {
					refused.Add(1) // conflicts, timeouts: the buyer retries
					continue
				}
				mu.Lock()
				hist.RecordValue(time.Since(t0).Microseconds())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.ReportMetric(float64(hist.TotalCount())/elapsed.Seconds(), "orders/s")
	b.ReportMetric(float64(hist.ValueAtQuantile(50))/1000, "p50_ms")
	b.ReportMetric(float64(hist.ValueAtQuantile(99))/1000, "p99_ms")
	b.ReportMetric(float64(refused.Load()), "refused")
}
