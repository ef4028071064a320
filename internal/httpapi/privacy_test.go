package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// tokenedOrder is an order answer with the token that proves its holder.
type tokenedOrder struct {
	inventory.Order
	OrderToken string `json:"order_token"`
}

// buyReserved places alice's order on a new sale whose orders are
// reservations, and returns the 201's order with its token.
func buyReserved(t *testing.T, e *env, user string) tokenedOrder {
	t.Helper()
	v := e.createSale(t, `{"strategy":"mutex","stock":5,"pay_within_ms":600000}`)
	rec := e.order(v.ID, `{"user_id":"`+user+`"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	var o tokenedOrder
	mustJSON(t, rec, &o)
	if o.ID == 0 || o.Status != inventory.StatusReserved || o.OrderToken == "" {
		t.Fatalf("the 201 %s: want a reserved order with its order_token", rec.Body)
	}
	return o
}

// orderStatus is the order's status in the database.
func (e *env) orderStatus(t *testing.T, id uint64) string {
	t.Helper()
	var o inventory.Order
	if err := e.db.Take(&o, id).Error; err != nil {
		t.Fatalf("order %d: %v", id, err)
	}
	return o.Status
}

// An order named by its numeric id is read only with its order token: no
// token, a forged one or another order's is refused with the same answer
// whether or not the id exists, and the refusal names no buyer. The 201's
// token reads it.
func TestOrderByIDNeedsItsToken(t *testing.T) {
	e := newEnv(t)
	alice := buyReserved(t, e, "alice")
	bob := buyReserved(t, e, "bob")
	path := fmt.Sprintf("/api/orders/%d", alice.ID)
	nowhere := "/api/orders/999999999999"
	for _, c := range []struct{ name, query, code string }{
		{"no token", "", "order_token_required"},
		{"an empty token", "?order_token=", "order_token_required"},
		{"a forged token", "?order_token=v1.AAAAAAAAAAAAAAAAAAAAAAAA", "bad_order_token"},
		{"another order's token", "?order_token=" + bob.OrderToken, "bad_order_token"},
		{"a token cut short", "?order_token=" + alice.OrderToken[:len(alice.OrderToken)-1], "bad_order_token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := e.get(path + c.query)
			wantError(t, rec, http.StatusForbidden, c.code, "order_token")
			if body := rec.Body.String(); strings.Contains(body, "alice") || strings.Contains(body, "user_id") {
				t.Fatalf("a refusal tells about the order: %s", body)
			}
			if c.query != "?order_token="+bob.OrderToken {
				other := e.get(nowhere + c.query)
				if other.Code != rec.Code || other.Body.String() != rec.Body.String() {
					t.Fatalf("an id that exists answers %d %s, one that does not %d %s", rec.Code, rec.Body, other.Code, other.Body)
				}
			}
		})
	}
	rec := e.get(path + "?order_token=" + alice.OrderToken)
	var st struct {
		State string        `json:"state"`
		Order *tokenedOrder `json:"order"`
	}
	mustJSON(t, rec, &st)
	if rec.Code != http.StatusOK || st.State != "confirmed" || st.Order == nil || st.Order.ID != alice.ID ||
		st.Order.UserID != "alice" || st.Order.OrderToken != alice.OrderToken {
		t.Fatalf("alice's order with its token: %d %s", rec.Code, rec.Body)
	}
}

// Paying an order by its numeric id needs its token: alice's user id,
// which anyone could read, pays nothing, nor does a forged token or
// another order's; each refusal leaves the order reserved in the database.
// user_id is optional, and must be the buyer's when given.
func TestPayByIDNeedsTheToken(t *testing.T) {
	e := newEnv(t)
	alice := buyReserved(t, e, "alice")
	bob := buyReserved(t, e, "bob")
	pay := fmt.Sprintf("/api/orders/%d/pay", alice.ID)
	for _, c := range []struct {
		name, body  string
		status      int
		code, field string
	}{
		{"her user id only", `{"user_id":"alice"}`, 403, "order_token_required", "order_token"},
		{"an empty body", `{}`, 403, "order_token_required", "order_token"},
		{"a forged token", `{"order_token":"v1.AAAAAAAAAAAAAAAAAAAAAAAA","user_id":"alice"}`, 403, "bad_order_token", "order_token"},
		{"another order's token", `{"order_token":"` + bob.OrderToken + `","user_id":"alice"}`, 403, "bad_order_token", "order_token"},
		{"a token that is no string", `{"order_token":7}`, 400, "invalid_field", "order_token"},
		{"the token, another buyer", `{"order_token":"` + alice.OrderToken + `","user_id":"bob"}`, 403, "not_your_order", "user_id"},
		{"the token, a bad user id", `{"order_token":"` + alice.OrderToken + `","user_id":true}`, 400, "invalid_field", "user_id"},
		{"an unknown field", `{"order_token":"` + alice.OrderToken + `","amount":1}`, 400, "unknown_field", "amount"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.post(pay, c.body), c.status, c.code, c.field)
			if got := e.orderStatus(t, alice.ID); got != inventory.StatusReserved {
				t.Fatalf("alice's order is %s after a refused payment", got)
			}
		})
	}
	wantError(t, e.post("/api/orders/999999999999/pay", `{"order_token":"`+alice.OrderToken+`"}`), 403, "bad_order_token", "order_token")
	for _, body := range []string{`{"order_token":"` + alice.OrderToken + `"}`, `{"order_token":"` + alice.OrderToken + `","user_id":"alice"}`} {
		rec := e.post(pay, body)
		var o tokenedOrder
		mustJSON(t, rec, &o)
		if rec.Code != http.StatusOK || o.Status != inventory.StatusPaid || o.ID != alice.ID || o.OrderToken != alice.OrderToken {
			t.Fatalf("pay %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	if got := e.orderStatus(t, alice.ID); got != inventory.StatusPaid {
		t.Fatalf("alice's order is %s after her payment", got)
	}
	if got := e.orderStatus(t, bob.ID); got != inventory.StatusReserved {
		t.Fatalf("bob's order is %s: nobody paid it", got)
	}
}

// With SECKILL_ADMIN_TOKEN set, the admin token reads any order by its id;
// a wrong one is no proof, and it pays nothing: paying is the buyer's.
func TestAdminTokenReadsByID(t *testing.T) {
	e := newEnv(t, withToken("s3cret"))
	rec := e.post("/api/sales", `{"strategy":"mutex","stock":5,"pay_within_ms":600000}`, "Authorization: Bearer s3cret")
	var sl inventory.SaleView
	mustJSON(t, rec, &sl)
	var o tokenedOrder
	mustJSON(t, e.order(sl.ID, `{"user_id":"alice"}`), &o)
	path := fmt.Sprintf("/api/orders/%d", o.ID)
	if r := e.do(http.MethodGet, path, nil, "Authorization: Bearer s3cret"); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"alice"`) {
		t.Fatalf("the admin token reads by id: %d %s", r.Code, r.Body)
	}
	wantError(t, e.do(http.MethodGet, path, nil, "Authorization: Bearer wrong"), 403, "order_token_required", "order_token")
	wantError(t, e.post(path+"/pay", `{"user_id":"alice"}`, "Authorization: Bearer s3cret"), 403, "order_token_required", "order_token")
	if got := e.orderStatus(t, o.ID); got != inventory.StatusReserved {
		t.Fatalf("the order is %s: the admin token paid it", got)
	}
}

// The order routes are rate limited per client IP, shared by reading and
// paying, in Redis (so across replicas, as guard's tests show): 429 rate_limited
// with Retry-After after the burst; another IP, and the admin token's
// holder, are not held back by it.
func TestOrderRoutesRateLimited(t *testing.T) {
	e := newEnv(t, withGuards, withToken("s3cret"), withOrderRate(2))
	from := func(ip, method, path, body string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.RemoteAddr = ip + ":40000"
		for _, h := range header {
			k, v, _ := strings.Cut(h, ": ")
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		return rec
	}
	answered, start := 0, time.Now()
	var refused *httptest.ResponseRecorder
	for i := 0; refused == nil && i < 1000; i++ {
		var rec *httptest.ResponseRecorder
		if i%2 == 0 {
			rec = from("203.0.113.7", http.MethodGet, "/api/orders/1", "")
		} else {
			rec = from("203.0.113.7", http.MethodPost, "/api/orders/1/pay", `{}`)
		}
		switch rec.Code {
		case http.StatusForbidden:
			answered++
		case http.StatusTooManyRequests:
			refused = rec
		default:
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if most := 2 + int(time.Since(start)/(500*time.Millisecond)); refused == nil || answered < 2 || answered > most {
		t.Fatalf("%d requests of one IP at 2/s answered before a 429, want 2 to %d", answered, most)
	}
	b := wantError(t, refused, http.StatusTooManyRequests, "rate_limited", "")
	if !b.Retryable || refused.Header().Get("Retry-After") == "" {
		t.Fatalf("a 429 must be retryable and say when: %+v, Retry-After %q", b, refused.Header().Get("Retry-After"))
	}
	wantError(t, from("203.0.113.8", http.MethodGet, "/api/orders/1", ""), 403, "order_token_required", "order_token")
	for range 5 {
		if r := from("203.0.113.7", http.MethodGet, "/api/orders/999999999999", "", "Authorization: Bearer s3cret"); r.Code != http.StatusNotFound {
			t.Fatalf("the admin token's holder: %d %s, want the 404 of an order that does not exist", r.Code, r.Body)
		}
	}
}
