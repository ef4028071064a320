package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// listedSale is one sale made for the list's tests: how it is made, then
// the orders and sections written for it.
type listedSale struct {
	sale     sale.Spec
	stock    int64    // the stock left, written after the orders (-1: untouched)
	orders   []string // one "user:status" per order; status paid, reserved, expired or returned (expired, unit back)
	sections [][3]int // wait (-1: unknown), enter, exit in µs from a base
	fenced   int      // stale-token writes rejected
	drift    int64    // the last reconciliation's drift
}

// makeListedSales writes every sale of specs with its orders and sections.
// The sales are made by a sale service of their own, with Redis: the env's
// replica has none, and one sale keeps its stock there.
func makeListedSales(t *testing.T, e *env, specs []listedSale) []inventory.Sale {
	t.Helper()
	sales := saletest.Service(t, lockstrategy.Backends{DB: e.db, Redis: testenv.Redis(t)}, nil)
	ctx := context.Background()
	base := time.Now().UTC().Truncate(time.Microsecond)
	out := make([]inventory.Sale, 0, len(specs))
	for _, sp := range specs {
		sl := saletest.Make(t, sales, sp.sale)
		var orders []inventory.Order
		for _, o := range sp.orders {
			user, status, _ := bytes.Cut([]byte(o), []byte(":"))
			ord := inventory.Order{SaleID: sl.ID, UserID: string(user), ReplicaID: "list-test", Status: string(status)}
			if ord.Status == "returned" {
				ord.Status, ord.UnitReturned = inventory.StatusExpired, true
			}
			orders = append(orders, ord)
		}
		if len(orders) > 0 {
			if err := e.db.Create(&orders).Error; err != nil {
				t.Fatal(err)
			}
		}
		var sections []sectionlog.Section
		for _, s := range sp.sections {
			sec := sectionlog.Section{SaleID: sl.ID, ReplicaID: "list-test",
				EnterAt: base.Add(time.Duration(s[1]) * time.Microsecond), ExitAt: base.Add(time.Duration(s[2]) * time.Microsecond)}
			if s[0] >= 0 {
				w := base.Add(time.Duration(s[0]) * time.Microsecond)
				sec.WaitAt = &w
			}
			sections = append(sections, sec)
		}
		if len(sections) > 0 {
			if err := e.db.Create(&sections).Error; err != nil {
				t.Fatal(err)
			}
		}
		if sp.stock >= 0 {
			if err := e.db.Exec("UPDATE sales SET stock = ? WHERE id = ?", sp.stock, sl.ID).Error; err != nil {
				t.Fatal(err)
			}
		}
		for range sp.fenced {
			if err := e.store.CountFenced(ctx, sl.ID); err != nil {
				t.Fatal(err)
			}
		}
		if sp.drift != 0 {
			if err := e.store.SaveDrift(ctx, sl.ID, inventory.Reconciliation{Drift: sp.drift, CheckedAt: base}); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, sl)
	}
	return out
}

// variedSales cover every figure of a sale's stats: orders of each status,
// oversold and lost stock, duplicates with and without a per-user limit,
// sections that overlap and hand over, fenced writes and a drift.
func variedSales() []listedSale {
	mk := func(name string, stock, perUser int64) sale.Spec {
		return sale.Spec{Name: &name, Strategy: new("mutex"), Stock: &stock, PerUserLimit: &perUser,
			OrderMode: new(inventory.OrderSync)}
	}
	fenced := mk("fenced and drifted", 5, 1)
	fenced.Fencing, fenced.Strategy = new(true), new("redis-lua-stock")
	window := mk("reservations", 10, 0)
	window.PayWithinMS = new(int64(60000))
	return []listedSale{
		{sale: mk("untouched", 5, 1), stock: -1},
		{sale: mk("sold right", 5, 1), stock: 2, orders: []string{"a:paid", "b:paid", "c:paid"}},
		{sale: mk("oversold and lost", 2, 0), stock: 1, orders: []string{"a:paid", "b:paid", "c:paid", "d:paid"}},
		{sale: mk("duplicates", 10, 1), stock: 4, orders: []string{"a:paid", "a:paid", "b:paid", "b:paid", "b:paid", "c:paid"}},
		{sale: mk("no per-user limit", 10, 0), stock: 4, orders: []string{"a:paid", "a:paid", "b:paid", "b:paid", "b:paid", "c:paid"}},
		{sale: mk("limit two, expired count", 10, 2), stock: 7, orders: []string{"a:paid", "a:expired", "a:returned", "b:paid", "b:paid"}},
		{sale: window, stock: 8, orders: []string{"a:reserved", "b:paid", "c:expired", "d:returned"}},
		{sale: mk("only expired", 3, 1), stock: 3, orders: []string{"a:returned", "b:returned"}},
		{sale: mk("sections", 5, 1), stock: 2, orders: []string{"a:paid", "b:paid", "c:paid"},
			sections: [][3]int{{0, 100, 1100}, {0, 1600, 3600}, {15000, 15100, 16100}, {-1, 16300, 17300}, {16000, 17000, 18000}}},
		{sale: mk("sections, no orders", 5, 1), stock: -1, sections: [][3]int{{-1, 0, 10}, {5, 20, 40}}},
		{sale: fenced, stock: 4, orders: []string{"a:paid"}, fenced: 2, drift: 3},
	}
}

// The list answers, for every sale, exactly what the sale's own view says
// (with the list's verdict, which takes the drift from the sale's row).
func TestSalesListMatchesEachSaleView(t *testing.T) {
	e := newEnv(t)
	made := makeListedSales(t, e, variedSales())
	rec := e.get("/api/sales")
	if rec.Code != http.StatusOK {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	var raw []json.RawMessage
	mustJSON(t, rec, &raw)
	listed := map[uint64]json.RawMessage{}
	for _, r := range raw {
		var id struct{ ID uint64 }
		if err := json.Unmarshal(r, &id); err != nil {
			t.Fatal(err)
		}
		listed[id.ID] = r
	}
	ctx := context.Background()
	for _, sl := range made {
		got, ok := listed[sl.ID]
		if !ok {
			t.Fatalf("sale %d (%s) is not in the list of %d", sl.ID, sl.Name, len(raw))
		}
		fresh, err := e.store.GetSale(ctx, sl.ID)
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.store.View(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		judgeListed(&v)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("sale %q:\n list %s\n view %s", sl.Name, got, want)
		}
	}
}

// The list of 100 sales costs a few statements, not a few per sale; a
// crowd asking at once costs no more than one of them.
func TestSalesListStatements(t *testing.T) {
	e := newEnv(t)
	stmts := countStatements(t, e.db)
	specs := make([]listedSale, listLimit)
	for i := range specs {
		sp := listedSale{sale: sale.Spec{Name: new(fmt.Sprintf("counted %d", i)), Strategy: new("mutex"), Stock: new(int64(3)),
			PerUserLimit: new(int64(i % 2)), OrderMode: new(inventory.OrderSync)}, stock: 2, orders: []string{"a:paid"}}
		if i%3 == 0 {
			sp.sections = [][3]int{{0, 10, 20}, {5, 25, 40}}
		}
		specs[i] = sp
	}
	makeListedSales(t, e, specs)

	before := stmts.count()
	rec := e.get("/api/sales")
	n := stmts.count() - before
	if rec.Code != http.StatusOK {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	var list []inventory.SaleView
	mustJSON(t, rec, &list)
	if len(list) != listLimit {
		t.Fatalf("%d sales listed, want %d", len(list), listLimit)
	}
	t.Logf("GET /api/sales with %d sales: %d statements", len(list), n)
	if n > 5 {
		t.Fatalf("GET /api/sales with %d sales ran %d statements, want at most 5", len(list), n)
	}

	// A crowd right after: one shared computation at most.
	before = stmts.count()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if rec := e.get("/api/sales"); rec.Code != http.StatusOK {
				t.Errorf("list in a crowd: %d %s", rec.Code, rec.Body)
			}
		})
	}
	wg.Wait()
	if n := stmts.count() - before; n > 5 {
		t.Fatalf("20 clients listing at once ran %d statements, want at most 5 (one computation)", n)
	}
}

// The list is shared for a second, but a sale made on this replica is in
// the next list at once.
func TestSalesListShowsACreatedSaleAtOnce(t *testing.T) {
	e := newEnv(t)
	e.createSale(t, `{"strategy":"mutex","stock":1,"name":"before"}`)
	if rec := e.get("/api/sales"); rec.Code != http.StatusOK {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	made := e.createSale(t, `{"strategy":"mutex","stock":1,"name":"after"}`)
	var list []inventory.SaleView
	mustJSON(t, e.get("/api/sales"), &list)
	if len(list) == 0 || list[0].ID != made.ID {
		t.Fatalf("the list right after creating sale %d starts with %+v", made.ID, list[0].Sale)
	}
}
