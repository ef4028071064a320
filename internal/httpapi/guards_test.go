package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// guardWait bounds waits for a state another goroutine brings about.
const guardWait = 30 * time.Second

func (e *env) order(id uint64, body string, header ...string) *httptest.ResponseRecorder {
	return e.post(fmt.Sprintf("/api/sales/%d/orders", id), body, append(header, "Content-Type: application/json")...)
}

func (e *env) soldCount(t *testing.T, id uint64) int64 {
	t.Helper()
	var n int64
	if err := e.db.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ?", id).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func wantLayer(t *testing.T, rec *httptest.ResponseRecorder, layer string) {
	t.Helper()
	if got := rec.Header().Get(headerLayer); got != layer {
		t.Fatalf("%s %q, want %q (status %d %s)", headerLayer, got, layer, rec.Code, rec.Body)
	}
}

// Before the opening an order gets a cheap 409 not_open that says when,
// and a ticket is refused the same way; nothing is written.
func TestNotOpenYet(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"mutex","stock":5,"opens_in_ms":600000}`)
	if d := time.Until(v.OpensAt); d < 9*time.Minute || d > 10*time.Minute {
		t.Fatalf("opens_at %v is not 10 minutes from creation", v.OpensAt)
	}
	rec := e.order(v.ID, `{"user_id":"alice"}`)
	b := wantError(t, rec, http.StatusConflict, "not_open", "")
	wantLayer(t, rec, "opening")
	if at, err := time.Parse(time.RFC3339Nano, b.OpensAt); err != nil || !at.Equal(v.OpensAt) {
		t.Fatalf("opens_at member %q, want %v", b.OpensAt, v.OpensAt)
	}
	if ra, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || ra < 500 || ra > 600 {
		t.Fatalf("Retry-After %q, want the seconds to the opening", rec.Header().Get("Retry-After"))
	}
	wantError(t, e.post(fmt.Sprintf("/api/sales/%d/ticket", v.ID), `{"user_id":"alice"}`), http.StatusConflict, "not_open", "")
	if n := e.soldCount(t, v.ID); n != 0 {
		t.Fatalf("%d orders before the opening", n)
	}

	past := e.createSale(t, `{"strategy":"mutex","stock":5,"opens_at":"2020-01-01T00:00:00Z"}`)
	if rec := e.order(past.ID, `{"user_id":"alice"}`); rec.Code != http.StatusCreated {
		t.Fatalf("a sale opened in the past refuses: %d %s", rec.Code, rec.Body)
	}
	for body, field := range map[string]string{
		`{"strategy":"mutex","stock":5,"opens_at":"tomorrow"}`:                             "opens_at",
		`{"strategy":"mutex","stock":5,"opens_at":"2099-01-01T00:00:00Z"}`:                 "opens_at",
		`{"strategy":"mutex","stock":5,"opens_in_ms":-1}`:                                  "opens_in_ms",
		`{"strategy":"mutex","stock":5,"opens_in_ms":3600001}`:                             "opens_in_ms",
		`{"strategy":"mutex","stock":5,"opens_in_ms":1,"opens_at":"2020-01-01T00:00:00Z"}`: "opens_in_ms",
		`{"strategy":"mutex","stock":5,"rate_limit_user":-1}`:                              "rate_limit_user",
		`{"strategy":"mutex","stock":5,"rate_limit_ip":100001}`:                            "rate_limit_ip",
		`{"strategy":"mutex","stock":5,"ticket_required":"yes"}`:                           "ticket_required",
		`{"strategy":"mutex","stock":5,"sold_out_cache":1}`:                                "sold_out_cache",
	} {
		before := e.countSales(t)
		rec := e.post("/api/sales", body)
		var b wire.Body
		mustJSON(t, rec, &b)
		if rec.Code != http.StatusBadRequest || b.Field != field || b.Message == "" {
			t.Fatalf("%s: %d %+v, want a 400 naming %s", body, rec.Code, b, field)
		}
		if e.countSales(t) != before {
			t.Fatalf("%s: a refused sale was written", body)
		}
	}
}

// A ticket_required sale refuses orders without a ticket, or with another
// user's; the ticket the API issues to the user buys.
func TestTicketRequired(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-conditional","stock":5,"ticket_required":true}`)
	rec := e.order(v.ID, `{"user_id":"alice"}`)
	wantError(t, rec, http.StatusForbidden, "ticket_required", "ticket")
	wantLayer(t, rec, "ticket")
	var bob struct {
		Ticket    string    `json:"ticket"`
		SaleID    uint64    `json:"sale_id"`
		UserID    string    `json:"user_id"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	rec = e.post(fmt.Sprintf("/api/sales/%d/ticket", v.ID), `{"user_id":"bob"}`, "Content-Type: application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("ticket: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &bob)
	if bob.Ticket == "" || bob.SaleID != v.ID || bob.UserID != "bob" || time.Until(bob.ExpiresAt) <= 0 {
		t.Fatalf("ticket answer %+v", bob)
	}
	rec = e.order(v.ID, `{"user_id":"alice","ticket":"`+bob.Ticket+`"}`)
	wantError(t, rec, http.StatusForbidden, "bad_ticket", "ticket")
	wantLayer(t, rec, "ticket")
	wantError(t, e.order(v.ID, `{"user_id":"bob","ticket":"forged.abc"}`), http.StatusForbidden, "bad_ticket", "ticket")
	wantError(t, e.order(v.ID, `{"user_id":"bob","ticket":7}`), http.StatusBadRequest, "invalid_field", "ticket")
	if n := e.soldCount(t, v.ID); n != 0 {
		t.Fatalf("%d orders without a valid ticket", n)
	}
	rec = e.order(v.ID, `{"user_id":"bob","ticket":"`+bob.Ticket+`"}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("bob with his ticket: %d %s", rec.Code, rec.Body)
	}
	wantLayer(t, rec, "database")
	wantError(t, e.post("/api/sales/999999999/ticket", `{"user_id":"bob"}`), http.StatusNotFound, "not_found", "")
	wantError(t, e.post(fmt.Sprintf("/api/sales/%d/ticket", v.ID), `{}`), http.StatusBadRequest, "invalid_field", "user_id")
}

// A per-user limit is enforced across requests with 429 and Retry-After,
// counted by layer; another user is not limited by it.
func TestRateLimitedOrders(t *testing.T) {
	e := newEnv(t, withGuards)
	v := e.createSale(t, `{"strategy":"db-conditional","stock":1000,"per_user_limit":0,"rate_limit_user":2}`)
	allowed, start := 0, time.Now()
	var refused *httptest.ResponseRecorder
	for i := 0; refused == nil && i < 1000; i++ {
		rec := e.order(v.ID, `{"user_id":"alice"}`)
		switch rec.Code {
		case http.StatusCreated:
			allowed++
		case http.StatusTooManyRequests:
			refused = rec
		default:
			t.Fatalf("order %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if most := 2 + int(time.Since(start)/(500*time.Millisecond)); refused == nil || allowed < 2 || allowed > most {
		t.Fatalf("%d orders of one user at 2/s before a refusal, want 2 to %d", allowed, most)
	}
	b := wantError(t, refused, http.StatusTooManyRequests, "rate_limited", "")
	wantLayer(t, refused, "rate_limit")
	if !b.Retryable || refused.Header().Get("Retry-After") != "1" {
		t.Fatalf("a 429 must be retryable and say when: %+v, Retry-After %q", b, refused.Header().Get("Retry-After"))
	}
	if n := e.soldCount(t, v.ID); n != int64(allowed) {
		t.Fatalf("%d orders in the database, %d answered 201", n, allowed)
	}
	if rec := e.order(v.ID, `{"user_id":"bob"}`); rec.Code != http.StatusCreated {
		t.Fatalf("another user: %d %s", rec.Code, rec.Body)
	}
	metricsText := e.get("/metrics").Body.String()
	if !strings.Contains(metricsText, `seckill_order_answers_total{code="rate_limited",layer="rate_limit",strategy="db-conditional"} 1`) {
		t.Fatalf("/metrics does not count the refusal by layer:\n%s", grepLines(metricsText, "seckill_order_answers_total"))
	}
}

func grepLines(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A retried click with the same Idempotency-Key gets the first order back,
// never a second one, even when the retries run at the same time and the
// sale would let the user buy again: the database's unique key decides,
// for a lock and for a lock-free strategy.
func TestIdempotencyKey(t *testing.T) {
	e := newEnv(t)
	for _, strategy := range []string{"mutex", "db-conditional", "db-pessimistic"} {
		t.Run(strategy, func(t *testing.T) {
			v := e.createSale(t, `{"strategy":"`+strategy+`","stock":100,"per_user_limit":0}`)
			const retries = 8
			var wg sync.WaitGroup
			recs := make([]*httptest.ResponseRecorder, retries)
			for i := range retries {
				wg.Go(func() { recs[i] = e.order(v.ID, `{"user_id":"alice"}`, "Idempotency-Key: click-1") })
			}
			wg.Wait()
			var first inventory.Order
			replayed := 0
			for i, rec := range recs {
				if rec.Code != http.StatusCreated {
					t.Fatalf("retry %d: %d %s", i, rec.Code, rec.Body)
				}
				var o inventory.Order
				mustJSON(t, rec, &o)
				if first.ID == 0 {
					first = o
				}
				if o.ID != first.ID {
					t.Fatalf("retry %d got order %d, another got %d: a second order", i, o.ID, first.ID)
				}
				if rec.Header().Get(headerReplayed) == "true" {
					replayed++
					wantLayer(t, rec, "idempotency")
				}
			}
			if replayed != retries-1 {
				t.Fatalf("%d answers marked replayed, want %d", replayed, retries-1)
			}
			if n := e.soldCount(t, v.ID); n != 1 {
				t.Fatalf("%d orders for one key", n)
			}
			if rec := e.order(v.ID, `{"user_id":"alice"}`, "Idempotency-Key: click-2"); rec.Code != http.StatusCreated {
				t.Fatalf("a new click (new key): %d %s", rec.Code, rec.Body)
			}
			if rec := e.order(v.ID, `{"user_id":"bob"}`, "Idempotency-Key: click-1"); rec.Code != http.StatusCreated || rec.Header().Get(headerReplayed) != "" {
				t.Fatalf("another user's key of the same text: %d %s", rec.Code, rec.Body)
			}
			if n := e.soldCount(t, v.ID); n != 3 {
				t.Fatalf("%d orders, want 3", n)
			}
		})
	}
	v := e.createSale(t, `{"strategy":"mutex","stock":1}`)
	for _, key := range []string{strings.Repeat("k", 65), "has space", "ünï"} {
		rec := e.order(v.ID, `{"user_id":"alice"}`, "Idempotency-Key: "+key)
		wantError(t, rec, http.StatusBadRequest, "invalid_field", "Idempotency-Key")
	}
	if n := e.soldCount(t, v.ID); n != 0 {
		t.Fatal("a refused key made an order")
	}
	// The first answer stands after sell-out: the retry of the click that
	// bought the last unit is its order, not "sold out".
	if rec := e.order(v.ID, `{"user_id":"carol"}`, "Idempotency-Key: last"); rec.Code != http.StatusCreated {
		t.Fatalf("last unit: %d %s", rec.Code, rec.Body)
	}
	if rec := e.order(v.ID, `{"user_id":"carol"}`, "Idempotency-Key: last"); rec.Code != http.StatusCreated || rec.Header().Get(headerReplayed) != "true" {
		t.Fatalf("retry after sell-out: %d %s", rec.Code, rec.Body)
	}
}

// Once the stock of record reads 0, sold-out answers come from memory;
// a restock clears the cache and sells again. With the cache off every
// sold-out answer comes from the database.
func TestSoldOutCacheAndRestock(t *testing.T) {
	e := newEnv(t, withGuards)
	v := e.createSale(t, `{"strategy":"mutex","stock":1}`)
	if rec := e.order(v.ID, `{"user_id":"u0"}`); rec.Code != http.StatusCreated {
		t.Fatalf("first order: %d %s", rec.Code, rec.Body)
	}
	rec := e.order(v.ID, `{"user_id":"u1"}`)
	wantError(t, rec, http.StatusConflict, "sold_out", "")
	wantLayer(t, rec, "database")
	i := 2
	testenv.WaitFor(t, guardWait, "a sold-out answer from the cache", func() bool {
		rec := e.order(v.ID, fmt.Sprintf(`{"user_id":"u%d"}`, i))
		i++
		if rec.Code != http.StatusConflict {
			t.Fatalf("after sell-out: %d %s", rec.Code, rec.Body)
		}
		return rec.Header().Get(headerLayer) == "sold_out_cache"
	})

	rec = e.post(fmt.Sprintf("/api/sales/%d/restock", v.ID), `{"units":2}`, "Content-Type: application/json")
	if rec.Code != http.StatusOK {
		t.Fatalf("restock: %d %s", rec.Code, rec.Body)
	}
	var after inventory.SaleView
	mustJSON(t, rec, &after)
	if after.Stock != 2 || after.InitialStock != 3 || after.Sold != 1 || after.Oversold != 0 || after.LostUpdates != 0 {
		t.Fatalf("after a restock of 2: %+v", after)
	}
	for _, user := range []string{"r1", "r2"} {
		rec := e.order(v.ID, `{"user_id":"`+user+`"}`)
		if rec.Code != http.StatusCreated {
			t.Fatalf("after the restock %s: %d %s", user, rec.Code, rec.Body)
		}
	}
	rec = e.order(v.ID, `{"user_id":"r3"}`)
	wantError(t, rec, http.StatusConflict, "sold_out", "")
	if n := e.soldCount(t, v.ID); n != 3 {
		t.Fatalf("%d orders, want 3 (1 + the 2 restocked)", n)
	}
	for body, field := range map[string]string{`{}`: "units", `{"units":0}`: "units", `{"units":-3}`: "units", `{"units":"2"}`: "units"} {
		rec := e.post(fmt.Sprintf("/api/sales/%d/restock", v.ID), body, "Content-Type: application/json")
		var b wire.Body
		mustJSON(t, rec, &b)
		if rec.Code != http.StatusBadRequest || b.Field != field {
			t.Fatalf("restock %s: %d %+v, want a 400 naming %s", body, rec.Code, b, field)
		}
	}
	wantError(t, e.post("/api/sales/999999999/restock", `{"units":1}`), http.StatusNotFound, "not_found", "")

	off := e.createSale(t, `{"strategy":"mutex","stock":1,"sold_out_cache":false}`)
	e.order(off.ID, `{"user_id":"u0"}`)
	for i := range 20 {
		rec := e.order(off.ID, fmt.Sprintf(`{"user_id":"x%d"}`, i))
		wantError(t, rec, http.StatusConflict, "sold_out", "")
		wantLayer(t, rec, "database")
	}
}

// Under every guard at once (sold-out cache, rate limits, idempotency
// retries), a herd on a safe strategy leaves the database's truth as it
// would be without them: the stock sold exactly, nothing oversold, no user
// above the per-user limit, and one order per key answered 201.
func TestGuardsKeepTheTruth(t *testing.T) {
	e := newEnv(t, withGuards)
	for _, strategy := range []string{"db-conditional", "db-optimistic", "db-pessimistic", "mutex"} {
		t.Run(strategy, func(t *testing.T) {
			const stock, users = 10, 40
			v := e.createSale(t, `{"strategy":"`+strategy+`","stock":10,"rate_limit_user":3}`)
			var mu sync.Mutex
			orderOf := map[string]uint64{} // idempotency key -> the order its 201s named
			var wg sync.WaitGroup
			for u := range users {
				wg.Go(func() {
					// Each user clicks twice with one key (a retried click), then once
					// more; a retryable answer is retried with the same key until the
					// answer is final, so the stock sells out.
					for i, key := range []string{"a", "a", "b"} {
						key = fmt.Sprintf("u%d-%s", u, key)
						for try := 0; try < 200; try++ {
							rec := e.order(v.ID, fmt.Sprintf(`{"user_id":"u%d"}`, u), "Idempotency-Key: "+key)
							if rec.Code == http.StatusCreated {
								var o inventory.Order
								if err := json.Unmarshal(rec.Body.Bytes(), &o); err != nil {
									t.Errorf("click %d of u%d: %v", i, u, err)
									return
								}
								mu.Lock()
								if prev, ok := orderOf[key]; ok && prev != o.ID {
									t.Errorf("key %s answered orders %d and %d", key, prev, o.ID)
								}
								orderOf[key] = o.ID
								mu.Unlock()
								break
							}
							var b wire.Body
							if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || rec.Code >= 500 && !b.Retryable {
								t.Errorf("click %d of u%d: %d %s", i, u, rec.Code, rec.Body)
								return
							}
							if !b.Retryable {
								break // sold out, limit reached: final
							}
							time.Sleep(20 * time.Millisecond) // a client's pause before retrying, not a wait for state
						}
					}
				})
			}
			wg.Wait()
			e.srv.orders.Flush()
			got, err := e.srv.view(t.Context(), v.ID)
			if err != nil {
				t.Fatal(err)
			}
			distinct := map[uint64]bool{}
			for _, id := range orderOf {
				distinct[id] = true
			}
			if got.Sold != stock || got.Oversold != 0 || got.Duplicates != 0 || got.LostUpdates != 0 || got.Stock != 0 ||
				int64(len(distinct)) != got.Sold {
				t.Fatalf("after the herd: %+v; %d orders answered 201, want %d sold, nothing oversold or duplicated", got.Stats, len(distinct), stock)
			}
		})
	}
}
