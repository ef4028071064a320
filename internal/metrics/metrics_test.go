package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/seckill-lab/seckill/internal/order"
)

func TestObservePlace(t *testing.T) {
	m := New()
	m.ObservePlace(order.Observation{Strategy: "mutex", Outcome: "ok", Total: 3 * time.Millisecond, LockWait: time.Millisecond, Retries: 0})
	m.ObservePlace(order.Observation{Strategy: "mutex", Outcome: "ok", Total: 3 * time.Millisecond, LockWait: time.Millisecond, Retries: 0})
	m.ObservePlace(order.Observation{Strategy: "db-optimistic", Outcome: "conflict", Total: 10 * time.Millisecond, LockWait: 0, Retries: 5})

	if got := testutil.ToFloat64(m.orders.WithLabelValues("mutex", "ok")); got != 2 {
		t.Errorf("orders{mutex,ok} = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.orders.WithLabelValues("db-optimistic", "conflict")); got != 1 {
		t.Errorf("orders{db-optimistic,conflict} = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.retries.WithLabelValues("db-optimistic")); got != 5 {
		t.Errorf("cas retries = %v, want 5", got)
	}
	if n := testutil.CollectAndCount(m.duration); n != 2 {
		t.Errorf("duration series = %d, want 2 (one per strategy)", n)
	}
}

// Two Metrics must coexist: each has its own registry.
func TestNewTwiceAndServe(t *testing.T) {
	a, b := New(), New()
	a.ObservePlace(order.Observation{Strategy: "none", Outcome: "sold_out", Total: time.Millisecond, LockWait: 0, Retries: 0})
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`seckill_orders_total{outcome="sold_out",strategy="none"} 1`,
		"seckill_order_duration_seconds_bucket",
		"seckill_lock_wait_seconds_count",
		"go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	rec = httptest.NewRecorder()
	b.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if strings.Contains(rec.Body.String(), "seckill_orders_total{") {
		t.Error("second registry shows the first one's observations")
	}
}
