package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/go-sql-driver/mysql"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lessons/lessondb"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

// Each domain error maps to its status and code, wrapped or not.
func TestErrorMap(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{order.ErrSoldOut, 409, "sold_out"},
		{order.ErrLimitReached, 409, "limit_reached"},
		{order.ErrConflict, 409, "conflict"},
		{order.ErrFenced, 409, "fenced"},
		{order.ErrLockLost, 503, "lock_lost"},
		{fmt.Errorf("%w: %w", order.ErrLockTimeout, lockstrategy.ErrNotAcquired), 503, "lock_timeout"},
		{order.ErrSaleNotFound, 404, "not_found"},
		{inventory.ErrSaleNotFound, 404, "not_found"},
		{fmt.Errorf("get: %w", lockstrategy.ErrMissingBackend), 503, "strategy_unavailable"},
		{sale.ErrStrategyUnavailable, 503, "strategy_unavailable"},
		{&sale.FieldError{Field: "stock", Message: "stock is required"}, 400, "invalid_field"},
		{runs.ErrNotFound, 404, "not_found"},
		{runs.ErrNotYours, 409, "not_yours"},
		{fmt.Errorf("%w: histogram: bad", runs.ErrInvalid), 400, "invalid_report"},
		{lessondb.ErrBusy, 409, "lesson_busy"},
		{lessondb.ErrNotYours, 409, "not_running"},
		{lessondb.ErrVerdict, 400, "invalid_field"},
		{lessondb.ErrNext, 400, "invalid_field"},
		{lessondb.ErrNotFound, 404, "not_found"},
		{lessondb.ErrUnknown, 404, "not_found"},
		{faults.ErrDisabled, 403, "faults_disabled"},
		{faults.ErrNoSession, 409, "no_session"},
		{fmt.Errorf("%w: %w", order.ErrDBUnavailable, lockstrategy.ErrBackendDown), 503, "db_unavailable"}, // a lock in the DB
		{faults.ErrNotEnsemble, 409, "not_ensemble"},
		{fmt.Errorf("%w: held", faults.ErrZKBusy), 503, "zk_ensemble_busy"},
		{fmt.Errorf("%w: no pid file", faults.ErrZKEnsemble), 503, "zk_ensemble_failed"},
		{faults.ErrNoDBLink, 409, "no_db_link"},
		{fmt.Errorf("%w: node r1 at 127.0.0.1:1: no answer", faults.ErrRedisRestart), 503, "redis_restart_failed"},
		{&http.MaxBytesError{Limit: MaxBodyBytes}, 413, "body_too_large"},
		{errors.New("Error 1064 (42000): You have an error in your SQL syntax"), 500, "internal"},
		// A backend that did not answer on a path without its own mapping
		// (a queued order's lookup when Redis restarted) is down, not a 500.
		{fmt.Errorf("orderqueue: looking up ot_1: %w", io.EOF), 503, "backend_down"},
		{sale.ErrDBUnavailable, 503, "db_unavailable"},
		// The driver's own word for a dead connection, on a path without
		// a mapping (a payment, in a chaos run's cut_db).
		{fmt.Errorf("pay: %w", mysql.ErrInvalidConn), 503, "db_unavailable"},
	}
	for _, c := range cases {
		status, body, _, _ := render(fmt.Errorf("context: %w", c.err))
		if status != c.status || body.Error != c.code || body.Message == "" {
			t.Errorf("%v -> %d %+v, want %d %s", c.err, status, body, c.status, c.code)
		}
		if strings.Contains(body.Message, "SQL") {
			t.Errorf("%v leaks into the message %q", c.err, body.Message)
		}
	}
	for _, retryable := range []error{order.ErrConflict, order.ErrFenced, order.ErrLockLost, order.ErrLockTimeout, order.ErrDBUnavailable} {
		if _, b, _, _ := render(retryable); !b.Retryable {
			t.Errorf("%v should be retryable", retryable)
		}
	}
	if _, b, _, _ := render(order.ErrSoldOut); b.Retryable {
		t.Error("sold_out is not retryable")
	}
	// Entries that take their field or message from the error itself.
	for _, c := range []struct {
		err            error
		field, message string
	}{
		{fmt.Errorf("create: %w", &sale.FieldError{Field: "stock", Message: "stock is required (1..9)"}), "stock", "stock is required (1..9)"},
		{fmt.Errorf("%w: histogram: bad", runs.ErrInvalid), "", "invalid report: histogram: bad"},
		{fmt.Errorf("%w: node r1 at 127.0.0.1:1: no answer", faults.ErrRedisRestart), "node", "faults: redis restart failed: node r1 at 127.0.0.1:1: no answer"},
		{lessondb.ErrVerdict, "verdict", "verdict must be PASS, FAIL, ERROR or SKIP"},
		{lessondb.ErrNext, "next", "next needs en, zh and at"},
		{lessondb.ErrUnknown, "name", "no such lesson"},
	} {
		if _, b, _, _ := render(c.err); b.Field != c.field || b.Message != c.message {
			t.Errorf("%v -> field %q message %q, want %q %q", c.err, b.Field, b.Message, c.field, c.message)
		}
	}
}

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
