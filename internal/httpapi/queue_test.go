package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// An async sale over HTTP: 202 with a ticket and where to poll, the same
// ticket for a retried key, the ticket confirmed behind the queue with its
// order's token, the reservation paid by the ticket's holder (a user id,
// when given, must be the buyer's), the order read by its id with that
// token only, and the sale's view with its queue, reservations,
// reconciliation and verdict.
func TestQueuedOrderOverHTTP(t *testing.T) {
	e := newEnv(t, withQueue)
	wantError(t, e.post("/api/sales", `{"strategy":"mutex","stock":1,"order_mode":"async"}`), 400, "invalid_field", "order_mode")
	wantError(t, e.post("/api/sales", `{"strategy":"redis-lua-stock","stock":1,"pay_within_ms":10}`), 400, "invalid_field", "pay_within_ms")
	v := e.createSale(t, `{"strategy":"redis-lua-stock","stock":2,"order_mode":"async","pay_within_ms":600000}`)
	if v.OrderMode != inventory.OrderAsync || v.PayWithinMS != 600000 || v.Healthy == nil || !*v.Healthy {
		t.Fatalf("created %+v", v)
	}
	poll := acceptedOnceWithOneKey(t, e, v.ID)
	confirmedThenPaid(t, e, poll)
	wantError(t, e.get("/api/orders/not-a-ticket"), 400, "invalid_field", "ref")
	wantError(t, e.get(fmt.Sprintf("/api/orders/ot_%d_%032x", v.ID, 7)), 404, "not_found", "ref")
	queueFiguresAgree(t, e, v.ID)
}

// acceptedOnceWithOneKey: alice's order is queued (202, its ticket, where
// to poll), the same order with the same key answers the same ticket, a
// third is over the limit. It returns where to poll the ticket.
func acceptedOnceWithOneKey(t *testing.T, e *env, saleID uint64) string {
	rec := e.order(saleID, `{"user_id":"alice"}`, "Idempotency-Key: k-1")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("order: %d %s, want 202", rec.Code, rec.Body)
	}
	wantLayer(t, rec, "queue")
	var acc struct {
		Ticket string `json:"order_ticket"`
		State  string `json:"state"`
		Poll   string `json:"poll"`
	}
	mustJSON(t, rec, &acc)
	if acc.State != "pending" || !strings.HasPrefix(acc.Ticket, "ot_") || acc.Poll != "/api/orders/"+acc.Ticket || rec.Header().Get("Location") != acc.Poll {
		t.Fatalf("202 body %+v, Location %q", acc, rec.Header().Get("Location"))
	}
	again := e.order(saleID, `{"user_id":"alice"}`, "Idempotency-Key: k-1")
	var acc2 struct {
		Ticket string `json:"order_ticket"`
	}
	mustJSON(t, again, &acc2)
	if again.Code != http.StatusAccepted || acc2.Ticket != acc.Ticket || again.Header().Get(headerReplayed) != "true" {
		t.Fatalf("retry: %d %s, want 202 with the same ticket, replayed", again.Code, again.Body)
	}
	wantError(t, e.order(saleID, `{"user_id":"alice"}`), 409, "limit_reached", "")
	return acc.Poll
}

// confirmedThenPaid waits for the ticket at poll to be confirmed as a
// reservation, has it paid by its ticket (only by alice), then read by its
// id with its order token.
func confirmedThenPaid(t *testing.T, e *env, poll string) {
	var st struct {
		orderqueue.TicketState
		Order *tokenedOrder `json:"order"`
	}
	testenv.WaitFor(t, guardWait, "the ticket to be confirmed", func() bool {
		r := e.get(poll)
		st.TicketState, st.Order = orderqueue.TicketState{}, nil
		mustJSON(t, r, &st)
		return r.Code == http.StatusOK && st.State == orderqueue.StateConfirmed
	})
	if st.Order == nil || st.Order.Status != inventory.StatusReserved || st.Order.PayBy == nil || st.UserID != "alice" ||
		st.Order.OrderToken == "" {
		t.Fatalf("confirmed ticket %+v", st)
	}
	pay := poll + "/pay"
	wantError(t, e.post(pay, `{"user_id":"bob"}`), 403, "not_your_order", "user_id")
	wantError(t, e.post(pay, `{"user_id":""}`), 400, "invalid_field", "user_id")
	for _, body := range []string{`{}`, `{"user_id":"alice"}`} { // the ticket is proof; paying again answers the paid order
		r := e.post(pay, body)
		var o tokenedOrder
		mustJSON(t, r, &o)
		if r.Code != http.StatusOK || o.Status != inventory.StatusPaid || o.ID != st.Order.ID || o.OrderToken != st.Order.OrderToken {
			t.Fatalf("pay %s: %d %s", body, r.Code, r.Body)
		}
	}
	byID := fmt.Sprintf("/api/orders/%d", st.Order.ID)
	wantError(t, e.get(byID), 403, "order_token_required", "order_token")
	if r := e.get(byID + "?order_token=" + st.Order.OrderToken); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"confirmed"`) {
		t.Fatalf("the order by its id: %d %s", r.Code, r.Body)
	}
}

// queueFiguresAgree: the sale's view shows the queue, the reservation paid
// and no drift; reconciliation, the queue's figures and its durability
// answer, and a lock sale has nothing to reconcile.
func queueFiguresAgree(t *testing.T, e *env, saleID uint64) {
	var view inventory.SaleView
	mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", saleID)), &view)
	if view.Queue == nil || view.Queue.Confirmed != 1 || view.Queue.InFlight != 0 || view.Queue.Accepted != 1 ||
		view.Reservations == nil || view.Reservations.Paid != 1 || view.Reconcile == nil || view.Reconcile.Drift != 0 ||
		view.Reconcile.StoreStock != 1 || view.Healthy == nil || !*view.Healthy {
		t.Fatalf("sale view: queue %+v reservations %+v reconcile %+v healthy %v", view.Queue, view.Reservations, view.Reconcile, view.Healthy)
	}
	if r := e.get(fmt.Sprintf("/api/sales/%d/reconcile", saleID)); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"drift":0`) {
		t.Fatalf("reconcile: %d %s", r.Code, r.Body)
	}
	lock := e.createSale(t, `{"strategy":"mutex","stock":1}`)
	wantError(t, e.get(fmt.Sprintf("/api/sales/%d/reconcile", lock.ID)), 409, "nothing_to_reconcile", "")
	if r := e.get("/api/queue"); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"httpapi-test"`) {
		t.Fatalf("queue figures: %d %s", r.Code, r.Body)
	}
	if r := e.get("/api/queue/durability"); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"mode"`) {
		t.Fatalf("durability: %d %s", r.Code, r.Body)
	}
	wantError(t, e.do(http.MethodPut, "/api/queue/durability", strings.NewReader(`{"mode":"sometimes"}`)), 400, "invalid_field", "mode")
}
