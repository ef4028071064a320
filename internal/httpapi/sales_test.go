package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Every rejected body: its status, code and field, and no sale written.
func TestCreateSaleRejects(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("é", sale.MaxNameLen+1)
	cases := []struct {
		name, body, code, field string
	}{
		{"empty body", "", "empty_body", ""},
		{"blank body", " \n\t", "empty_body", ""},
		{"array", `[]`, "invalid_json", ""},
		{"null", `null`, "invalid_json", ""},
		{"string", `"mutex"`, "invalid_json", ""},
		{"truncated", `{"strategy":"mutex","stock":1`, "invalid_json", ""},
		{"bad syntax", `{"strategy":"mutex",,}`, "invalid_json", ""},
		{"trailing text", `{"strategy":"mutex","stock":1} x`, "invalid_json", ""},
		{"second object", `{"strategy":"mutex","stock":1}{}`, "invalid_json", ""},
		{"trailing bracket", `{"strategy":"mutex","stock":1}]`, "invalid_json", ""},
		{"unknown field", `{"strategy":"mutex","stock":1,"bogus":1}`, "unknown_field", "bogus"},
		{"field in other case", `{"Strategy":"mutex","stock":1}`, "unknown_field", "Strategy"},
		{"duplicate field", `{"strategy":"mutex","stock":1,"stock":2}`, "invalid_field", "stock"},
		{"strategy missing", `{"stock":1}`, "invalid_field", "strategy"},
		{"strategy empty", `{"strategy":"","stock":1}`, "invalid_field", "strategy"},
		{"strategy number", `{"strategy":5,"stock":1}`, "invalid_field", "strategy"},
		{"strategy unknown", `{"strategy":"nope","stock":1}`, "invalid_field", "strategy"},
		{"strategy unavailable", `{"strategy":"test-needs-zk","stock":1}`, "invalid_field", "strategy"},
		{"stock missing", `{"strategy":"mutex"}`, "invalid_field", "stock"},
		{"stock null", `{"strategy":"mutex","stock":null}`, "invalid_field", "stock"},
		{"stock string", `{"strategy":"mutex","stock":"1"}`, "invalid_field", "stock"},
		{"stock fraction", `{"strategy":"mutex","stock":1.5}`, "invalid_field", "stock"},
		{"stock exponent", `{"strategy":"mutex","stock":1e30}`, "invalid_field", "stock"},
		{"stock beyond int64", `{"strategy":"mutex","stock":99999999999999999999}`, "invalid_field", "stock"},
		{"stock zero", `{"strategy":"mutex","stock":0}`, "invalid_field", "stock"},
		{"stock negative", `{"strategy":"mutex","stock":-1}`, "invalid_field", "stock"},
		{"stock too big", `{"strategy":"mutex","stock":1000001}`, "invalid_field", "stock"},
		{"stock object", `{"strategy":"mutex","stock":{"a":[1]}}`, "invalid_field", "stock"},
		{"work_ms negative", `{"strategy":"mutex","stock":1,"work_ms":-1}`, "invalid_field", "work_ms"},
		{"work_ms too big", `{"strategy":"mutex","stock":1,"work_ms":60001}`, "invalid_field", "work_ms"},
		{"work_ms string", `{"strategy":"mutex","stock":1,"work_ms":"5"}`, "invalid_field", "work_ms"},
		{"ttl_ms negative", `{"strategy":"mutex","stock":1,"ttl_ms":-1}`, "invalid_field", "ttl_ms"},
		{"ttl_ms too big", `{"strategy":"mutex","stock":1,"ttl_ms":600001}`, "invalid_field", "ttl_ms"},
		{"per_user_limit negative", `{"strategy":"mutex","stock":1,"per_user_limit":-1}`, "invalid_field", "per_user_limit"},
		{"per_user_limit too big", `{"strategy":"mutex","stock":1,"per_user_limit":1000001}`, "invalid_field", "per_user_limit"},
		{"fencing string", `{"strategy":"mutex","stock":1,"fencing":"yes"}`, "invalid_field", "fencing"},
		{"fencing number", `{"strategy":"mutex","stock":1,"fencing":1}`, "invalid_field", "fencing"},
		{"watchdog string", `{"strategy":"mutex","stock":1,"watchdog":"no"}`, "invalid_field", "watchdog"},
		{"watchdog number", `{"strategy":"mutex","stock":1,"watchdog":0}`, "invalid_field", "watchdog"},
		{"watchdog off, none to turn off", `{"strategy":"db-pessimistic","stock":1,"watchdog":false}`, "invalid_field", "watchdog"},
		{"watchdog off for mutex", `{"strategy":"mutex","stock":1,"watchdog":false}`, "invalid_field", "watchdog"},
		{"no_queue string", `{"strategy":"mutex","stock":1,"no_queue":"yes"}`, "invalid_field", "no_queue"},
		{"no_queue on a strategy without one", `{"strategy":"db-pessimistic","stock":1,"no_queue":true}`, "invalid_field", "no_queue"},
		{"name number", `{"strategy":"mutex","stock":1,"name":5}`, "invalid_field", "name"},
		{"name too long", `{"strategy":"mutex","stock":1,"name":"` + long + `"}`, "invalid_field", "name"},
		{"product number", `{"strategy":"mutex","stock":1,"product":5}`, "invalid_field", "product"},
		{"product too long", `{"strategy":"mutex","stock":1,"product":"` + long + `"}`, "invalid_field", "product"},
		{"stock_shards zero", `{"strategy":"db-conditional","stock":10,"stock_shards":0}`, "invalid_field", "stock_shards"},
		{"stock_shards too many", `{"strategy":"db-conditional","stock":100,"stock_shards":65}`, "invalid_field", "stock_shards"},
		{"stock_shards string", `{"strategy":"db-conditional","stock":10,"stock_shards":"8"}`, "invalid_field", "stock_shards"},
		{"stock_shards above the stock", `{"strategy":"db-conditional","stock":3,"stock_shards":4}`, "invalid_field", "stock_shards"},
		{"stock_shards on a lock", `{"strategy":"mutex","stock":10,"stock_shards":2}`, "invalid_field", "stock_shards"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.countSales(t)
			wantError(t, e.post("/api/sales", c.body), http.StatusBadRequest, c.code, c.field)
			if after := e.countSales(t); after != before {
				t.Fatalf("a rejected request wrote %d sale(s)", after-before)
			}
		})
	}
}

func TestCreateSaleStrategyMessages(t *testing.T) {
	e := newEnv(t)
	b := wantError(t, e.post("/api/sales", `{"strategy":"nope","stock":1}`), 400, "invalid_field", "strategy")
	for _, want := range []string{`"nope"`, "mutex", "db-pessimistic"} {
		if !strings.Contains(b.Message, want) {
			t.Errorf("message %q does not list %s", b.Message, want)
		}
	}
	b = wantError(t, e.post("/api/sales", `{"strategy":"test-needs-zk","stock":1}`), 400, "invalid_field", "strategy")
	if !strings.Contains(b.Message, "zookeeper") || !strings.Contains(b.Message, "available: ") {
		t.Errorf("message %q should say what is missing and what is available", b.Message)
	}
}

func TestCreateSaleDefaults(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":5}`)
	// Open at once (opens_at is the creation), the sold-out cache on.
	want := inventory.Sale{ID: v.ID, Name: "mutex sale", Strategy: "mutex", InitialStock: 5, Stock: 5,
		TTLMS: sale.DefaultTTLMS, Watchdog: true, PerUserLimit: sale.DefaultPerUserLimit, Status: "open",
		SoldOutCache: true, OrderMode: inventory.OrderSync, StockShards: 1}
	if d := v.CreatedAt.Sub(v.OpensAt); d < 0 || d > time.Second {
		t.Fatalf("opens_at %v, created_at %v: a sale without an opening opens when it is made", v.OpensAt, v.CreatedAt)
	}
	got := v.Sale
	got.CreatedAt, got.UpdatedAt, got.OpensAt = want.CreatedAt, want.UpdatedAt, want.OpensAt
	if v.ID == 0 || got != want || v.Stats != (inventory.Stats{}) || v.Healthy == nil || !*v.Healthy {
		t.Fatalf("got %+v, want %+v with zero stats, healthy", v, want)
	}

	v = e.createSale(t, `{"name":"  Spring  ","strategy":"db-pessimistic","stock":1000000,"work_ms":60000,
		"ttl_ms":0,"fencing":true,"per_user_limit":0}`)
	if v.Name != "Spring" || v.TTLMS != sale.DefaultTTLMS || !v.Fencing || v.PerUserLimit != 0 ||
		v.WorkMS != 60000 || v.InitialStock != sale.MaxStock {
		t.Fatalf("explicit values not kept: %+v", v.Sale)
	}
	v = e.createSale(t, `{"name":"`+strings.Repeat("秒", sale.MaxNameLen)+`","strategy":"none","stock":1,"ttl_ms":600000,"per_user_limit":1000000}`)
	if v.TTLMS != sale.MaxTTLMS || v.PerUserLimit != sale.MaxPerUserLimit || v.Name != strings.Repeat("秒", sale.MaxNameLen) {
		t.Fatalf("upper bounds not accepted: %+v", v.Sale)
	}
}

func TestGetAndListSales(t *testing.T) {
	e := newEnv(t)
	a := e.createSale(t, `{"strategy":"mutex","stock":3,"name":"a"}`)
	b := e.createSale(t, `{"strategy":"db-conditional","stock":4,"name":"b"}`)

	var got inventory.SaleView
	rec := e.get(fmt.Sprintf("/api/sales/%d", a.ID))
	if rec.Code != http.StatusOK {
		t.Fatalf("get: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &got)
	if got.Sale != a.Sale { // created_at too: POST and GET show the same instant
		t.Fatalf("GET shows %+v, POST showed %+v", got.Sale, a.Sale)
	}

	var list []inventory.SaleView
	rec = e.get("/api/sales")
	if rec.Code != http.StatusOK {
		t.Fatalf("list: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &list)
	if len(list) < 2 || len(list) > listLimit || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Fatalf("list is not newest first with b then a: %d sales, first %+v", len(list), list[0].Sale)
	}

	wantError(t, e.get("/api/sales/abc"), 400, "invalid_id", "id")
	wantError(t, e.get("/api/sales/-1"), 400, "invalid_id", "id")
	wantError(t, e.get("/api/sales/1.5"), 400, "invalid_id", "id")
	wantError(t, e.get("/api/sales/99999999999999999999"), 400, "invalid_id", "id")
	wantError(t, e.get("/api/sales/18446744073709551615"), 404, "not_found", "")
	wantError(t, e.get("/api/sales/0"), 404, "not_found", "")
}

func TestAdminToken(t *testing.T) {
	e := newEnv(t, withToken("s3cret"))
	body := `{"strategy":"mutex","stock":1}`
	for _, auth := range []string{"", "Bearer", "Bearer wrong", "Bearer s3cret2", "Basic s3cret", "s3cret"} {
		before := e.countSales(t)
		rec := e.post("/api/sales", body, "Authorization: "+auth)
		wantError(t, rec, http.StatusUnauthorized, "unauthorized", "")
		if rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
		if e.countSales(t) != before {
			t.Fatalf("unauthorized request %q wrote a sale", auth)
		}
	}
	for _, auth := range []string{"Bearer s3cret", "bearer s3cret"} {
		if rec := e.post("/api/sales", body, "Authorization: "+auth); rec.Code != http.StatusCreated {
			t.Fatalf("%q: %d %s", auth, rec.Code, rec.Body)
		}
	}
	// Buyers need no token.
	rec := e.post("/api/sales", body, "Authorization: Bearer s3cret")
	var v inventory.SaleView
	mustJSON(t, rec, &v)
	if rec := e.post(fmt.Sprintf("/api/sales/%d/orders", v.ID), `{"user_id":"u"}`); rec.Code != http.StatusCreated {
		t.Fatalf("order without token: %d %s", rec.Code, rec.Body)
	}
}

// A strategy that keeps its stock outside the database gets it loaded
// under the sale's lock key; if loading fails, no sale is left behind.
func TestCreateSaleLoadsReserverStock(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"test-reserver","stock":42}`)
	key := e.srv.orders.LockKey(v.ID)
	if n, ok := reserved.Loaded(key); !ok || n != 42 {
		t.Fatalf("LoadStock(%s) = %d, %v; want 42", key, n, ok)
	}
	for _, name := range []string{"test-reserver-broken", "test-broken-new"} {
		before := e.countSales(t)
		b := wantError(t, e.post("/api/sales", `{"strategy":"`+name+`","stock":1}`), 503, "strategy_unavailable", "")
		if strings.Contains(b.Message, "10.0.0") {
			t.Errorf("response leaks the backend error: %q", b.Message)
		}
		if e.countSales(t) != before {
			t.Fatalf("%s: a failed create left a sale", name)
		}
		if !strings.Contains(e.logs.String(), "10.0.0") {
			t.Errorf("%s: the real error is not in the log", name)
		}
	}
}

// redisEnv is newEnv with the real Redis and RedLock masters too: the
// strategies that have a watchdog.
func redisEnv(t *testing.T) *env {
	t.Helper()
	db := testenv.DB(t, "httpapi")
	e := &env{db: db, store: inventory.NewStore(db), metrics: metrics.New(), logs: &logBuf{}}
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	e.lockers = lockstrategy.NewInstances(withPoints(lockstrategy.Backends{DB: db, Redis: testenv.Redis(t), Redlock: testenv.Redlock(t)}))
	t.Cleanup(func() { e.lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "httpapi-test", Faults: hooksOf(e.lockers)}, e.store, e.lockers, e.metrics, log)
	t.Cleanup(orders.Close)
	e.srv = newServer(Deps{Store: e.store, Orders: orders, Lockers: e.lockers, Metrics: e.metrics, Log: log})
	return e
}

// The watchdog switch: on by default, off only where a lease renews itself
// (redis, redlock), shown by POST and GET alike; elsewhere a 400 that says
// which strategies have one.
func TestCreateSaleWatchdog(t *testing.T) {
	e := redisEnv(t)
	for _, c := range []struct {
		body string
		want bool
	}{
		{`{"strategy":"redis","stock":1}`, true},
		{`{"strategy":"redis","stock":1,"watchdog":false}`, false},
		{`{"strategy":"redlock","stock":1,"watchdog":false}`, false},
		{`{"strategy":"redlock","stock":1,"watchdog":true}`, true},
		{`{"strategy":"db-pessimistic","stock":1,"watchdog":true}`, true}, // nothing to turn off, nothing refused
	} {
		v := e.createSale(t, c.body)
		var got inventory.SaleView
		mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &got)
		if v.Watchdog != c.want || got.Watchdog != c.want {
			t.Errorf("%s: POST shows watchdog %v, GET %v; want %v", c.body, v.Watchdog, got.Watchdog, c.want)
		}
		if opts := order.LockOptions(got.Sale); opts.NoRenewal == c.want && got.Strategy != "db-pessimistic" {
			t.Errorf("%s: the order flow would lock with %+v", c.body, opts)
		}
	}
	for _, name := range []string{"db-pessimistic", "db-lock-table", "redis-no-owner", "redis-setnx-expire", "redis-lua-stock", "none"} {
		before := e.countSales(t)
		b := wantError(t, e.post("/api/sales", `{"strategy":"`+name+`","stock":1,"watchdog":false}`), 400, "invalid_field", "watchdog")
		if !strings.Contains(b.Message, strings.Join(lockstrategy.Renewing(), ", ")) || !strings.Contains(b.Message, name) {
			t.Errorf("%s: message %q should name the strategy and the ones with a watchdog", name, b.Message)
		}
		if e.countSales(t) != before {
			t.Fatalf("%s: a rejected request wrote a sale", name)
		}
	}
}

// Times the sales.opens_at column (DATETIME: years 1000 to 9999) cannot
// hold are a 400 naming the member, not a failed write; its first instant
// is accepted and kept.
func TestCreateSaleOpeningInTheColumnsRange(t *testing.T) {
	e := newEnv(t)
	for _, body := range []string{
		`{"strategy":"mutex","stock":5,"opens_at":"0000-01-01T00:00:00Z"}`,
		`{"strategy":"mutex","stock":5,"opens_at":"0001-01-01T00:00:00Z"}`,
		`{"strategy":"mutex","stock":5,"opens_at":"0999-12-31T23:59:59.999999Z"}`,
		`{"strategy":"mutex","stock":5,"opens_at":"1000-01-01T00:30:00+01:00"}`, // 0999-12-31T23:30 in UTC
		`{"strategy":"mutex","stock":5,"opens_at":"9999-12-31T23:59:59Z"}`,
		`{"strategy":"mutex","stock":5,"opens_in_ms":9223372036854775807}`,
		`{"strategy":"mutex","stock":5,"opens_in_ms":-9223372036854775808}`,
	} {
		before := e.countSales(t)
		field := "opens_at"
		if strings.Contains(body, "opens_in_ms") {
			field = "opens_in_ms"
		}
		wantError(t, e.post("/api/sales", body), http.StatusBadRequest, "invalid_field", field)
		if e.countSales(t) != before {
			t.Fatalf("%s: a refused sale was written", body)
		}
	}
	v := e.createSale(t, `{"strategy":"mutex","stock":5,"opens_at":"1000-01-01T00:00:00Z"}`)
	if want := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC); !v.OpensAt.Equal(want) {
		t.Fatalf("opens_at %v, want %v", v.OpensAt, want)
	}
}
