package herd

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A sale of 3 units opening at t0, sold at t0+100 ms, +250 ms and +400 ms
// (and an expired reservation at +900 ms, whose unit went back): sold out
// 400 ms after the opening, 300 ms after the first unit. Its live figures
// hold 3 orders and 7 sold-out-cache answers in the first second and 10
// more sold-out-cache answers later.
func TestLoadReadsOrdersAndLiveFigures(t *testing.T) {
	db := testenv.DB(t, "herd")
	ctx := context.Background()
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t)}, nil),
		sale.Spec{Name: new("herd test"), Strategy: new("redis"), Stock: new(int64(3)), TTLMS: new(int64(2000)),
			OpensAt: new(t0.Format(time.RFC3339Nano)), OrderMode: new(inventory.OrderSync)})
	for i, at := range []time.Duration{100, 250, 400, 900} {
		o := inventory.Order{SaleID: sale.ID, UserID: fmt.Sprintf("u%d", i), ReplicaID: "r", Status: inventory.StatusPaid,
			CreatedAt: t0.Add(at * time.Millisecond)}
		if at == 900 {
			o.Status = inventory.StatusExpired
		}
		if err := db.Create(&o).Error; err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Exec("UPDATE sales SET stock = 0 WHERE id = ?", sale.ID).Error; err != nil {
		t.Fatal(err)
	}
	before, err := Load(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if before.Answers != 0 || len(before.Layers) != 0 || before.FirstSecond.Answers != 0 {
		t.Fatalf("no live figures yet, got %+v", before)
	}

	rec := metrics.NewLiveRecorder(nil, nil)
	answer := func(n int, after time.Duration, outcome, layer string, total time.Duration) {
		for range n {
			rec.ObservePlace(order.Observation{SaleID: sale.ID, Strategy: "redis", Outcome: outcome, Layer: layer,
				Opening: t0, Arrived: t0.Add(after), Total: total})
		}
	}
	answer(3, 50*time.Millisecond, order.OutcomeOK, order.LayerLock, 40*time.Millisecond)
	answer(7, 450*time.Millisecond, order.OutcomeSoldOut, guard.LayerSoldOutCache, time.Millisecond)
	answer(10, 2*time.Second, order.OutcomeSoldOut, guard.LayerSoldOutCache, time.Millisecond)
	if err := rec.Publish(ctx, db, "r"); err != nil {
		t.Fatal(err)
	}

	v, err := Load(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if v.Sold != 3 || !v.SoldOut || v.SellOutMS == nil || *v.SellOutMS != 400 || *v.SellOutFromFirstMS != 300 {
		t.Fatalf("sold %d, sold out %v, sell-out %v ms (from the first %v), want 3, true, 400, 300",
			v.Sold, v.SoldOut, deref(v.SellOutMS), deref(v.SellOutFromFirstMS))
	}
	fs := v.FirstSecond
	if fs.Answers != 10 || fs.Orders != 3 || fs.SoldOut != 7 || fs.Others != 0 || fs.P50MS != 1 || fs.P99MS < 39 || fs.P99MS > 41 {
		t.Fatalf("first second %+v, want 10 answers, 3 orders, 7 sold out, p50 1 ms, p99 40 ms", fs)
	}
	if fs.OrdersP50MS == nil || fs.SoldOutP50MS == nil || *fs.OrdersP50MS < 39 || *fs.OrdersP50MS > 41 ||
		*fs.OrdersP99MS < 39 || *fs.OrdersP99MS > 41 || *fs.SoldOutP50MS != 1 || *fs.SoldOutP99MS != 1 {
		t.Fatalf("first second split: orders p50/p99 %v/%v ms, sold out %v/%v ms; want 40/40 and 1/1",
			deref(fs.OrdersP50MS), deref(fs.OrdersP99MS), deref(fs.SoldOutP50MS), deref(fs.SoldOutP99MS))
	}
	want := []LayerCount{{guard.LayerSoldOutCache, 17, 85}, {order.LayerLock, 3, 15}}
	if fmt.Sprint(v.Layers) != fmt.Sprint(want) || v.Answers != 20 {
		t.Fatalf("layers %v of %d answers, want %v of 20", v.Layers, v.Answers, want)
	}
}

// A sale with units left has no time to sell out.
func TestLoadNotSoldOut(t *testing.T) {
	db := testenv.DB(t, "herd")
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t)}, nil),
		sale.Spec{Name: new("herd open"), Strategy: new("redis"), Stock: new(int64(5)), TTLMS: new(int64(2000)),
			OrderMode: new(inventory.OrderSync)})
	if err := db.Create(&inventory.Order{SaleID: sale.ID, UserID: "u", ReplicaID: "r", Status: inventory.StatusPaid,
		CreatedAt: time.Now().UTC()}).Error; err != nil {
		t.Fatal(err)
	}
	v, err := Load(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if v.SoldOut || v.SellOutMS != nil || v.Sold != 1 || v.FirstOrderAt == nil {
		t.Fatalf("got %+v, want 1 sold, not sold out, no sell-out time", v)
	}
	if fs := v.FirstSecond; fs.OrdersP50MS != nil || fs.SoldOutP99MS != nil {
		t.Fatalf("no answers timed: the split is null, got %+v", fs)
	}
}

// The lock's holds come with the herd: a combining sale of 25 units whose
// lock was held 3 times (batches of 10, 10 and 5 orders, and a fourth hold
// that read a stock of 0) sold 25 units in 4 holds, 6.25 per hold. A
// strategy without a lock (redis-lua-stock), or a sale whose orders are
// queued, says so and counts no holds; a strategy this build does not
// know is judged by its sections.
func TestLoadLockHolds(t *testing.T) {
	db := testenv.DB(t, "herd")
	ctx := context.Background()
	store := inventory.NewStore(db)
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	sales := saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t)}, nil)
	newSale := func(strategy, mode string, combine bool) inventory.Sale {
		t.Helper()
		spec := sale.Spec{Name: new("herd holds"), Strategy: &strategy, Stock: new(int64(25)), TTLMS: new(int64(2000)),
			OpensAt: new(t0.Format(time.RFC3339Nano)), OrderMode: &mode}
		if combine {
			spec.Combine, spec.CombineMaxBatch = new(true), new(int64(10))
		}
		return saletest.Make(t, sales, spec)
	}
	hold := func(sale inventory.Sale, at time.Duration, buyers, orders int) {
		t.Helper()
		enter := t0.Add(at * time.Millisecond)
		s := sectionlog.Section{SaleID: sale.ID, ReplicaID: "r", EnterAt: enter, ExitAt: enter.Add(time.Millisecond),
			BatchBuyers: buyers, BatchOrders: orders, Outcome: sectionlog.OutcomeCommitted}
		if err := db.Create(&s).Error; err != nil {
			t.Fatal(err)
		}
	}
	load := func(sale inventory.Sale) View {
		t.Helper()
		v, err := Load(ctx, db, sale)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	combined := newSale("redis-setnx-expire", inventory.OrderSync, true) // a lock, registered by this binary's imports
	if v := load(combined); !v.Lock || v.Holds != 0 || v.UnitsPerHold != 0 {
		t.Fatalf("before any hold: lock %v, %d holds, %v per hold; want a lock, 0, 0", v.Lock, v.Holds, v.UnitsPerHold)
	}
	hold(combined, 10, 10, 10)
	hold(combined, 20, 10, 10)
	hold(combined, 30, 7, 5)
	hold(combined, 40, 3, 0)
	v := load(combined)
	if !v.Lock || v.Holds != 4 || v.HoldUnits != 25 || v.UnitsPerHold != 6.25 || v.Strategy != "redis-setnx-expire" ||
		!v.Combine || v.CombineMaxBatch != 10 || v.OrderMode != inventory.OrderSync {
		t.Fatalf("combining sale: %+v, want a lock held 4 times for 25 units (6.25 per hold), combining ≤10", v)
	}

	for _, s := range []inventory.Sale{newSale("redis-lua-stock", inventory.OrderSync, false),
		newSale("redis-lua-stock", inventory.OrderAsync, false)} {
		hold(s, 10, 0, 0) // a stray section does not make a lock
		if v := load(s); v.Lock || v.Holds != 0 || v.HoldUnits != 0 || v.UnitsPerHold != 0 {
			t.Fatalf("%s (%s): %+v, want no lock", s.Strategy, s.OrderMode, v)
		}
	}

	// A strategy this build does not know: sale.Service refuses it, so its
	// row is written directly, as an older build's sale would be.
	unknown := inventory.Sale{Name: "herd holds", Strategy: "herd-test-unknown", InitialStock: 25, TTLMS: 2000, OpensAt: t0,
		OrderMode: inventory.OrderSync}
	if err := store.CreateSale(ctx, &unknown); err != nil {
		t.Fatal(err)
	}
	if load(unknown).Lock {
		t.Fatal("an unknown strategy without sections: want no lock")
	}
	hold(unknown, 10, 0, 0)
	if v := load(unknown); !v.Lock || v.Holds != 1 || v.HoldUnits != 0 {
		t.Fatalf("an unknown strategy with a section: %+v, want a lock held once", v)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
