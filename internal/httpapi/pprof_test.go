package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/order"
)

// withPprof is newEnv's API with the profiler on (SECKILL_PPROF=on) and
// the admin token token ("": none).
func withPprof(t *testing.T, e *env, token string) {
	t.Helper()
	orders := order.NewService(order.Config{ReplicaID: "pprof-test"}, e.store, e.lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	e.srv = newServer(Deps{Store: e.store, Orders: orders, Lockers: e.lockers, AdminToken: token, Pprof: true})
}

func TestPprofIsOffUnlessAsked(t *testing.T) {
	e := newEnv(t)
	wantError(t, e.get("/debug/pprof/"), http.StatusNotFound, "not_found", "")
}

func TestPprofServesTheProfilesBehindTheAdminToken(t *testing.T) {
	e := newEnv(t)
	const token = "pprof-test-token-0123456789"
	withPprof(t, e, token)
	wantError(t, e.get("/debug/pprof/goroutine?debug=1"), http.StatusUnauthorized, "unauthorized", "")
	rec := e.do(http.MethodGet, "/debug/pprof/goroutine?debug=1", nil, "Authorization: Bearer "+token)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine profile:") {
		t.Fatalf("goroutine profile with the token: %d %.200s", rec.Code, rec.Body)
	}
	rec = e.do(http.MethodGet, "/debug/pprof/", nil, "Authorization: Bearer "+token)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "goroutine?debug=1") {
		t.Fatalf("index with the token: %d %.200s", rec.Code, rec.Body)
	}
}

func TestPprofWithoutATokenIsOpen(t *testing.T) {
	e := newEnv(t)
	withPprof(t, e, "")
	if rec := e.get("/debug/pprof/heap?debug=1"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "heap profile:") {
		t.Fatalf("heap profile without a token configured: %d %.200s", rec.Code, rec.Body)
	}
}
