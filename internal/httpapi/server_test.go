package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func TestBodyTooLarge(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":5}`)
	big := `{"strategy":"mutex","stock":1,"name":"` + strings.Repeat("a", 65<<10) + `"}`
	bigOrder := `{"user_id":"` + strings.Repeat("a", 65<<10) + `"}`
	before := e.countSales(t)
	// Declared length (refused before reading) and chunked (cut while reading).
	for name, body := range map[string]func(string) io.Reader{
		"content-length": func(s string) io.Reader { return strings.NewReader(s) },
		"chunked":        func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) },
	} {
		t.Run(name, func(t *testing.T) {
			wantError(t, e.do(http.MethodPost, "/api/sales", body(big)), http.StatusRequestEntityTooLarge, "body_too_large", "")
			wantError(t, e.do(http.MethodPost, ordersPath(v.ID), body(bigOrder)), http.StatusRequestEntityTooLarge, "body_too_large", "")
		})
	}
	if e.countSales(t) != before || e.countOrders(t, v.ID) != 0 {
		t.Fatal("an oversized request wrote a row")
	}
	// Just under the limit is read whole (and rejected for its content).
	under := `{"user_id":"` + strings.Repeat("a", MaxBodyBytes-20) + `"}`
	wantError(t, e.do(http.MethodPost, ordersPath(v.ID), io.MultiReader(strings.NewReader(under))), 400, "invalid_field", "user_id")
}

func TestNotFoundAndMethodNotAllowed(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/nope", "/api", "/api/sales/1/orders/2", "/api/sales/"} {
		wantError(t, e.get(p), http.StatusNotFound, "not_found", "")
	}
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodDelete, "/api/sales", "GET, POST"},
		{http.MethodGet, "/api/sales/1/orders", "POST"},
		{http.MethodPut, "/healthz", "GET"},
		{http.MethodPost, "/api/strategies", "GET"},
	} {
		rec := e.do(c.method, c.path, nil)
		wantError(t, rec, http.StatusMethodNotAllowed, "method_not_allowed", "")
		if got := rec.Header().Get("Allow"); !sameSet(got, c.allow) {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
}

func sameSet(a, b string) bool {
	as, bs := strings.Split(a, ", "), strings.Split(b, ", ")
	if len(as) != len(bs) {
		return false
	}
	for _, x := range as {
		if !strings.Contains(", "+b+", ", ", "+x+", ") {
			return false
		}
	}
	return true
}

// No panic reaches a client: 500 with the generic body, the panic in the log.
func TestPanicRecovery(t *testing.T) {
	e := newEnv(t)
	e.srv.engine.GET("/test/panic", func(*gin.Context) { panic("secret detail: password=hunter2") })
	rec := e.get("/test/panic")
	wantError(t, rec, http.StatusInternalServerError, "internal", "")
	if strings.Contains(rec.Body.String(), "hunter2") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Fatalf("panic text reached the client: %s", rec.Body)
	}
	var b map[string]any
	mustJSON(t, rec, &b)
	if len(b) != 2 || b["message"] != "internal error" {
		t.Fatalf("body %v, want exactly error and message", b)
	}
	if logs := e.logs.String(); !strings.Contains(logs, "hunter2") || !strings.Contains(logs, "middleware.go") {
		t.Fatalf("the panic and its stack are not in the log: %s", logs)
	}
}

// A real failure (a closed pool) is a 500 "internal": the driver's words
// go to the log only.
func TestInternalErrorHidden(t *testing.T) {
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: testenv.MySQLDSN(t, "httpapi")})
	if err != nil {
		t.Fatal(err)
	}
	inventory.Close(db)
	e := newEnv(t, func(c *envConfig) { c.db = db })
	for _, p := range []string{"/api/sales", "/api/sales/1"} {
		rec := e.get(p)
		wantError(t, rec, http.StatusInternalServerError, "internal", "")
		if strings.Contains(rec.Body.String(), "sql") {
			t.Fatalf("%s leaks: %s", p, rec.Body)
		}
	}
	if !strings.Contains(e.logs.String(), "database is closed") {
		t.Fatalf("the real error is not logged: %s", e.logs)
	}
}

func TestHealthz(t *testing.T) {
	e := newEnv(t)
	rec := e.get("/healthz")
	var h struct {
		Status   string
		Backends map[string]struct{ State string }
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &h) != nil || h.Status != "ok" ||
		h.Backends["db"].State != "up" || h.Backends["redis"].State != "not configured" || len(h.Backends) != 6 {
		t.Fatalf("healthz: %d %s; want ok, the database up and every other backend not configured", rec.Code, rec.Body)
	}
	down := newEnv(t, func(c *envConfig) {
		c.ping = func(ctx context.Context) error { return errors.New("dial tcp 127.0.0.1:13306: connection refused") }
	})
	rec = down.get("/healthz")
	wantError(t, rec, http.StatusServiceUnavailable, "db_unavailable", "")
	if strings.Contains(rec.Body.String(), "13306") {
		t.Fatalf("healthz leaks: %s", rec.Body)
	}
	// A ping that hangs is cut at the 1 s bound.
	hung := newEnv(t, func(c *envConfig) {
		c.ping = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	})
	wantError(t, hung.get("/healthz"), http.StatusServiceUnavailable, "db_unavailable", "")
}

func TestMetricsAfterOrder(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-conditional","stock":1}`)
	e.post(ordersPath(v.ID), `{"user_id":"a"}`)
	e.post(ordersPath(v.ID), `{"user_id":"b"}`)
	rec := e.get("/metrics")
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	for _, want := range []string{
		`seckill_orders_total{outcome="ok",strategy="db-conditional"} 1`,
		`seckill_orders_total{outcome="sold_out",strategy="db-conditional"} 1`,
		`seckill_order_duration_seconds_count{strategy="db-conditional"} 2`,
		"go_goroutines",
	} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestStrategies(t *testing.T) {
	e := newEnv(t)
	rec := e.get("/api/strategies")
	var list []map[string]any
	mustJSON(t, rec, &list)
	byName := map[string]map[string]any{}
	for _, s := range list {
		byName[s["name"].(string)] = s
		for _, k := range []string{"description", "needs", "safe", "available"} {
			if _, ok := s[k]; !ok {
				t.Errorf("%s lacks %q", s["name"], k)
			}
		}
		if s["needs"] == nil {
			t.Errorf("%s: needs is null, want a list", s["name"])
		}
	}
	check := func(name string, needs []string, safe, available bool) {
		t.Helper()
		s, ok := byName[name]
		if !ok {
			t.Fatalf("%s missing from %s", name, rec.Body)
		}
		gotNeeds, _ := json.Marshal(s["needs"])
		wantNeeds, _ := json.Marshal(needs)
		if !bytes.Equal(gotNeeds, wantNeeds) || s["safe"] != safe || s["available"] != available {
			t.Errorf("%s = %v, want needs %s safe %v available %v", name, s, wantNeeds, safe, available)
		}
	}
	check("none", []string{}, false, true)
	check("mutex", []string{}, false, true)
	check("db-pessimistic", []string{"db"}, true, true)
	check("test-needs-zk", []string{"zookeeper"}, false, false)
}

// TestIndex: / is the dashboard, and it links the API.
func TestIndex(t *testing.T) {
	e := newEnv(t)
	rec := e.get("/")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Seckill Lab") || !strings.Contains(rec.Body.String(), "/api/sales") {
		t.Fatalf("index: %d %s", rec.Code, rec.Body)
	}
}
