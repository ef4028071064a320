package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
)

func ordersPath(id uint64) string { return fmt.Sprintf("/api/sales/%d/orders", id) }

// Every rejected order body: 400 naming user_id (or the JSON problem), and
// no order written.
func TestPlaceOrderRejects(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":100,"per_user_limit":0}`)
	cases := []struct{ name, body, code, field string }{
		{"empty", "", "empty_body", ""},
		{"not an object", `["u"]`, "invalid_json", ""},
		{"trailing", `{"user_id":"u"} {"user_id":"v"}`, "invalid_json", ""},
		{"truncated", `{"user_id":"u"`, "invalid_json", ""},
		{"missing", `{}`, "invalid_field", "user_id"},
		{"null", `{"user_id":null}`, "invalid_field", "user_id"},
		{"empty string", `{"user_id":""}`, "invalid_field", "user_id"},
		{"too long", `{"user_id":"` + strings.Repeat("x", MaxUserIDLen+1) + `"}`, "invalid_field", "user_id"},
		{"too long unicode", `{"user_id":"` + strings.Repeat("买", MaxUserIDLen+1) + `"}`, "invalid_field", "user_id"},
		{"fraction", `{"user_id":1.5}`, "invalid_field", "user_id"},
		{"exponent", `{"user_id":1e3}`, "invalid_field", "user_id"},
		{"beyond uint64", `{"user_id":123456789012345678901234567890}`, "invalid_field", "user_id"},
		{"bool", `{"user_id":true}`, "invalid_field", "user_id"},
		{"array", `{"user_id":[1]}`, "invalid_field", "user_id"},
		{"object", `{"user_id":{"id":1}}`, "invalid_field", "user_id"},
		{"unknown field", `{"user_id":"u","qty":2}`, "unknown_field", "qty"},
		{"duplicate", `{"user_id":"u","user_id":"v"}`, "invalid_field", "user_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.post(ordersPath(v.ID), c.body), http.StatusBadRequest, c.code, c.field)
			if n := e.countOrders(t, v.ID); n != 0 {
				t.Fatalf("a rejected order wrote %d row(s)", n)
			}
		})
	}
	wantError(t, e.post("/api/sales/abc/orders", `{"user_id":"u"}`), 400, "invalid_id", "id")
	wantError(t, e.post("/api/sales/999999999999/orders", `{"user_id":"u"}`), 404, "not_found", "")
}

func TestPlaceOrder(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":3,"per_user_limit":0}`)
	for _, c := range []struct{ body, user string }{
		{`{"user_id":"alice"}`, "alice"},
		{`{"user_id":42}`, "42"},
		{`{"user_id":` + "18446744073709551615" + `}`, "18446744073709551615"},
	} {
		rec := e.post(ordersPath(v.ID), c.body)
		if rec.Code != http.StatusCreated {
			t.Fatalf("%s: %d %s", c.body, rec.Code, rec.Body)
		}
		var o inventory.Order
		mustJSON(t, rec, &o)
		if o.ID == 0 || o.SaleID != v.ID || o.UserID != c.user || o.ReplicaID != "httpapi-test" {
			t.Fatalf("order %+v, want user %q on sale %d", o, c.user, v.ID)
		}
		if !strings.Contains(rec.Body.String(), `"order_id":`) {
			t.Fatalf("response lacks order_id: %s", rec.Body)
		}
	}
	before := e.countOrders(t, v.ID)
	wantError(t, e.post(ordersPath(v.ID), `{"user_id":"late"}`), http.StatusConflict, "sold_out", "")
	if e.countOrders(t, v.ID) != before {
		t.Fatal("a sold-out order wrote a row")
	}
	var got inventory.SaleView
	mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &got)
	if got.Sold != 3 || got.Stock != 0 || got.Oversold != 0 || got.LostUpdates != 0 {
		t.Fatalf("after selling out: %+v", got)
	}
}

func TestPerUserLimit(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-pessimistic","stock":10,"per_user_limit":2}`)
	for i := 0; i < 2; i++ {
		if rec := e.post(ordersPath(v.ID), `{"user_id":"bob"}`); rec.Code != http.StatusCreated {
			t.Fatalf("order %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	wantError(t, e.post(ordersPath(v.ID), `{"user_id":"bob"}`), http.StatusConflict, "limit_reached", "")
	if n := e.countOrders(t, v.ID); n != 2 {
		t.Fatalf("%d orders, want 2", n)
	}
	if rec := e.post(ordersPath(v.ID), `{"user_id":"carol"}`); rec.Code != http.StatusCreated {
		t.Fatalf("another user: %d %s", rec.Code, rec.Body)
	}
}

// While someone else holds the sale's lock past the lock wait, the buyer
// gets 503 lock_timeout and nothing is written.
func TestLockTimeout(t *testing.T) {
	e := newEnv(t, func(c *envConfig) { c.lockWait = 200 * time.Millisecond })
	v := e.createSale(t, `{"strategy":"mutex","stock":5}`)
	// The same instance the order service uses: same name, same options.
	locker, err := e.lockers.Locker("mutex", lockstrategy.Options{TTL: sale.DefaultTTLMS * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := locker.Lock(context.Background(), e.srv.orders.LockKey(v.ID))
	if err != nil {
		t.Fatal(err)
	}
	b := wantError(t, e.post(ordersPath(v.ID), `{"user_id":"u"}`), http.StatusServiceUnavailable, "lock_timeout", "")
	if !b.Retryable {
		t.Error("lock_timeout should be marked retryable")
	}
	if n := e.countOrders(t, v.ID); n != 0 {
		t.Fatalf("timed-out order wrote %d row(s)", n)
	}
	if err := lease.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec := e.post(ordersPath(v.ID), `{"user_id":"u"}`); rec.Code != http.StatusCreated {
		t.Fatalf("after unlock: %d %s", rec.Code, rec.Body)
	}
}

// A buyer who hung up gets nothing useful written, and no order exists.
func TestClientGone(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":5}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ordersPath(v.ID), strings.NewReader(`{"user_id":"u"}`))
	rec := newRecorder()
	e.srv.ServeHTTP(rec, req)
	if rec.Body.Len() != 0 {
		t.Fatalf("wrote %q to a client that left", rec.Body)
	}
	if n := e.countOrders(t, v.ID); n != 0 {
		t.Fatalf("canceled order wrote %d row(s)", n)
	}
}
