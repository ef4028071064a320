package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// With an admin token set, every endpoint that writes anything but an order
// refuses a request without it (401, or 403 for faults) before its handler
// runs. The agents' endpoints (heartbeat, claims, share
// reports, lesson results) were open, so anyone could register a fake agent
// and forge a run's figures or a lesson's PASS. Every write route the engine
// has is checked, so a new one cannot be forgotten.
func TestEveryWriteNeedsTheToken(t *testing.T) {
	e := newEnv(t, withToken("s3cret"))
	e.db.Exec("DELETE FROM replicas WHERE id IN ('forged', 'with-token')")
	checked := 0
	for _, r := range e.srv.engine.Routes() {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			continue
		}
		if r.Method == http.MethodPost && (r.Path == "/api/sales/:id/orders" || r.Path == "/api/sales/:id/ticket" ||
			r.Path == "/api/orders/:ref/pay") {
			continue // buyers need no token (a ticket is signed, not stored: it writes nothing; paying is the order's holder's own write, proven by its ticket or order_token)
		}
		if r.Method == http.MethodPut && r.Path == "/api/class/questions/:id/vote" {
			continue // a student's phone votes without the token, which never leaves the trainer's screen: anonymous, bounded, limited per address (class_test.go)
		}
		path := r.Path
		for _, p := range []string{":id", ":step", ":share", ":name", ":ref"} {
			path = strings.ReplaceAll(path, p, "1")
		}
		for _, auth := range []string{"", "Bearer wrong"} {
			rec := e.do(r.Method, path, strings.NewReader(`{"agent_id":"forged"}`), "Authorization: "+auth, "Content-Type: application/json")
			if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusForbidden {
				t.Errorf("%s %s with Authorization %q: %d %s; want 401 or 403", r.Method, r.Path, auth, rec.Code, rec.Body)
			}
		}
		checked++
	}
	if checked < 9 {
		t.Fatalf("only %d write routes found; the check is not looking at the engine", checked)
	}
	var n int64
	e.db.Raw("SELECT COUNT(*) FROM replicas WHERE id = 'forged'").Scan(&n)
	if n != 0 {
		t.Fatal("a forged agent was registered without the token")
	}
	// With the token the agent endpoints answer.
	rec := e.post("/api/agents/heartbeat", `{"agent_id":"with-token","pid":1}`, "Authorization: Bearer s3cret")
	if rec.Code != http.StatusNoContent {
		t.Fatalf("heartbeat with the token: %d %s", rec.Code, rec.Body)
	}
}
