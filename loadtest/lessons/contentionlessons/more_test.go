package contentionlessons

import (
	"maps"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// cache-db-drift passes only when the restart lost the Redis stock (the
// sale, read right after the restart, says store_stock -1) and the orders
// after it met the rebuild (at least one 503 stock_reloading): a Redis that
// kept its data across the restart fails it, however well the sale ends.
func TestCacheDBDriftNeedsTheStockLost(t *testing.T) {
	lost, zero, kept := int64(-1), int64(0), int64(driftStock-driftBefore)
	good := driftRun{afterRestart: &lost,
		kinds: map[string]int{shopapi.KindOrder: 30, shopapi.KindSoldOut: 1, "stock_reloading": 12},
		view:  shopapi.SaleView{Sold: driftStock, StoreStock: &zero}}
	if ok, why := good.holds(); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(*driftRun)
		why  string
	}{
		{"Redis kept the stock (persistence on)", func(d *driftRun) { d.afterRestart = &kept; delete(d.kinds, "stock_reloading") }, "kept"},
		{"Redis kept the stock, a reload answered anyway", func(d *driftRun) { d.afterRestart = &kept }, "kept"},
		{"the stock after the restart unread", func(d *driftRun) { d.afterRestart = nil }, "not read"},
		{"no stock_reloading answer", func(d *driftRun) { delete(d.kinds, "stock_reloading") }, "stock_reloading"},
		{"a 500", func(d *driftRun) { d.kinds["internal"] = 1 }, "internal"},
		{"a unit short", func(d *driftRun) { d.kinds[shopapi.KindOrder] = 29 }, "29 orders"},
		{"no sold out", func(d *driftRun) { delete(d.kinds, shopapi.KindSoldOut) }, "sold_out"},
		{"oversold", func(d *driftRun) { d.view.Oversold = 1 }, "oversold"},
		{"sold 39", func(d *driftRun) { d.view.Sold = 39 }, "sold 39"},
		{"the Redis stock ends at 3", func(d *driftRun) { three := int64(3); d.view.StoreStock = &three }, "Redis stock"},
		{"no Redis stock at the end", func(d *driftRun) { d.view.StoreStock = nil }, "Redis stock"},
	} {
		d := good
		d.kinds = maps.Clone(good.kinds)
		tc.edit(&d)
		ok, why := d.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// optimistic-vs-pessimistic judges each sale by its own figures: the CAS
// rounds the sale's orders lost (its live retries, not a counter shared by
// every db-optimistic sale on the replicas), once the live figures count
// every order sent; db-optimistic must have lost some, db-pessimistic none.
func TestOptimisticVsPessimisticNeedsTheSalesOwnRetries(t *testing.T) {
	sold := map[string]int{shopapi.KindOrder: 50, shopapi.KindSoldOut: 14}
	opt := casSide{strategy: "db-optimistic", sent: 64, counted: 64, kinds: sold, retries: 62, view: shopapi.SaleView{Sold: 50}}
	pess := casSide{strategy: "db-pessimistic", sent: 64, counted: 64, kinds: sold, view: shopapi.SaleView{Sold: 50}}
	if ok, why := casVerdict(opt, pess); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	conflicts := opt
	conflicts.retries, conflicts.kinds = 0, map[string]int{shopapi.KindOrder: 40, "conflict": 24}
	conflicts.view.Sold = 40
	if ok, why := casVerdict(conflicts, pess); !ok {
		t.Fatalf("409 conflicts (every round lost) are retries too: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(o, p *casSide)
		why  string
	}{
		{"optimistic lost no round", func(o, p *casSide) { o.retries = 0 }, "db-optimistic lost no CAS round"},
		{"optimistic counted in part", func(o, p *casSide) { o.counted = 40 }, "40 of its 64"},
		{"pessimistic counted in part", func(o, p *casSide) { p.counted = 63 }, "63 of its 64"},
		{"pessimistic retried", func(o, p *casSide) { p.retries = 3 }, "db-pessimistic lost 3"},
		{"pessimistic conflict", func(o, p *casSide) { p.kinds = map[string]int{shopapi.KindOrder: 49, "conflict": 1} }, "db-pessimistic lost"},
		{"optimistic oversold", func(o, p *casSide) { o.view.Oversold = 1 }, "db-optimistic broke"},
		{"pessimistic lost an update", func(o, p *casSide) { p.view.LostUpdates = 1 }, "db-pessimistic broke"},
		{"a 201 without its order", func(o, p *casSide) { o.view.Sold = 49 }, "db-optimistic sold 49"},
		{"nothing sold", func(o, p *casSide) { p.view.Sold, p.kinds = 0, map[string]int{"timeout": 64} }, "db-pessimistic sold 0"},
	} {
		o, p := opt, pess
		tc.edit(&o, &p)
		ok, why := casVerdict(o, p)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
