package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/seckill-lab/seckill/internal/order"
)

// grants builds n grants, granted 1 ms apart, whose arrival order follows
// arrivalRank (rank 0 arrived first).
func grantsFrom(arrivalRank []int) []grant {
	t0 := time.Unix(1_700_000_000, 0)
	out := make([]grant, len(arrivalRank))
	for i, rank := range arrivalRank {
		out[i] = grant{arrived: t0.Add(time.Duration(rank) * time.Microsecond).UnixNano(),
			acquired: t0.Add(time.Second + time.Duration(i)*time.Millisecond).UnixNano()}
	}
	return out
}

func TestFairnessOf(t *testing.T) {
	fifo := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	lifo := []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}
	oneSwap := []int{0, 1, 2, 3, 5, 4, 6, 7, 8, 9} // 5 served before 4
	cases := []struct {
		name  string
		ranks []int
		want  Fairness
		ratio float64
	}{
		{"fifo", fifo, Fairness{Inverted: 0, Pairs: 9}, 1},
		{"lifo", lifo, Fairness{Inverted: 9, Pairs: 9}, 0},
		{"one swap", oneSwap, Fairness{Inverted: 1, Pairs: 9}, 1 - 1.0/9},
		{"single", []int{0}, Fairness{}, 0},
		{"none", nil, Fairness{}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := grantsFrom(c.ranks)
			// Shuffle-ish: observations reach the recorder in completion
			// order, not grant order; fairnessOf must sort by grant time.
			for i, j := 0, len(g)-1; i < j; i, j = i+1, j-1 {
				g[i], g[j] = g[j], g[i]
			}
			got := fairnessOf(g)
			if got != c.want {
				t.Fatalf("fairnessOf = %+v, want %+v", got, c.want)
			}
			if r := got.Ratio(); math.Abs(r-c.ratio) > 1e-9 {
				t.Fatalf("Ratio = %v, want %v", r, c.ratio)
			}
		})
	}
}

// Windows merge by summing their counts.
func TestFairnessAdd(t *testing.T) {
	a := fairnessOf(grantsFrom([]int{0, 1, 2}))    // 0 of 2
	b := fairnessOf(grantsFrom([]int{2, 1, 0, 3})) // 2 of 3
	if got := a.Add(b); got != (Fairness{Inverted: 2, Pairs: 5}) {
		t.Fatalf("sum = %+v", got)
	}
}

// One LiveRecorder feeds Prometheus as well: orders, critical-section time
// (only for attempts that held the lock), and fairness at publish time.
func TestLiveRecorderFeedsPrometheus(t *testing.T) {
	m := New()
	r := NewLiveRecorder(m, nil)
	t0 := time.Now()
	r.ObservePlace(order.Observation{SaleID: 1, Strategy: "mutex", Outcome: order.OutcomeOK, Arrived: t0,
		Acquired: t0.Add(time.Millisecond), Total: 3 * time.Millisecond, LockWait: time.Millisecond, Critical: 2 * time.Millisecond})
	r.ObservePlace(order.Observation{SaleID: 1, Strategy: "mutex", Outcome: order.OutcomeLockTimeout, Arrived: t0,
		Total: 10 * time.Millisecond, LockWait: 10 * time.Millisecond})
	if got := testutil.ToFloat64(m.orders.WithLabelValues("mutex", "ok")); got != 1 {
		t.Errorf("orders{mutex,ok} = %v, want 1", got)
	}
	if n := testutil.CollectAndCount(m.critical); n != 1 {
		t.Errorf("critical-section series = %d, want 1", n)
	}
	m.AddFairness("mutex", Fairness{Inverted: 1, Pairs: 4})
	if got := testutil.ToFloat64(m.fairPair.WithLabelValues("mutex")); got != 4 {
		t.Errorf("fairness pairs = %v, want 4", got)
	}
	if got := testutil.ToFloat64(m.fairInv.WithLabelValues("mutex")); got != 1 {
		t.Errorf("fairness inversions = %v, want 1", got)
	}
}

// A random sale id (outcome not_found) must not create live state.
func TestLiveRecorderIgnoresUnknownSales(t *testing.T) {
	r := NewLiveRecorder(nil, nil)
	r.ObservePlace(order.Observation{SaleID: 99, Strategy: "mutex", Outcome: order.OutcomeNotFound, Total: time.Millisecond})
	r.ObservePlace(order.Observation{SaleID: 0, Strategy: "mutex", Outcome: order.OutcomeOK, Total: time.Millisecond})
	if n := len(r.snapshot()); n != 0 {
		t.Fatalf("%d sale states after unknown-sale observations, want 0", n)
	}
}

// The payload round-trips: same counters, same histogram counts.
func TestPayloadRoundTrip(t *testing.T) {
	st := newSaleState("redlock")
	t0 := time.Now()
	for i := range 1000 {
		st.record(order.Observation{Outcome: order.OutcomeOK, Arrived: t0, Acquired: t0.Add(time.Millisecond),
			Total: time.Duration(i+1) * 37 * time.Microsecond, LockWait: time.Duration(i) * time.Microsecond,
			Critical: 5 * time.Millisecond, Retries: 1}, t0)
	}
	st.record(order.Observation{Outcome: order.OutcomeSoldOut, Total: 20 * time.Minute}, t0) // clamped, still counted
	p := livePayload{Version: payloadVersion, Strategy: st.strategy, Requests: st.requests,
		Outcomes: st.outcomes, Retries: st.retries, Fairness: Fairness{Inverted: 3, Pairs: 7}}
	body, err := encodePayload(p, liveHists{st.latency, st.lockWait, st.critical})
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodePayload(body)
	if err != nil {
		t.Fatal(err)
	}
	h, err := decodeHists(&back)
	if err != nil {
		t.Fatal(err)
	}
	if back.Requests != 1001 || back.Outcomes["ok"] != 1000 || back.Outcomes["sold_out"] != 1 ||
		back.Retries != 1000 || back.Fairness != p.Fairness || back.Strategy != "redlock" {
		t.Fatalf("counters after round trip: %+v", back)
	}
	for _, c := range []struct {
		name      string
		orig, got interface {
			TotalCount() int64
			ValueAtQuantile(float64) int64
			Max() int64
		}
	}{{"latency", st.latency, h.latency}, {"lock wait", st.lockWait, h.lockWait}, {"critical", st.critical, h.critical}} {
		if c.orig.TotalCount() != c.got.TotalCount() || c.orig.Max() != c.got.Max() {
			t.Errorf("%s: count %d max %d, want %d and %d", c.name, c.got.TotalCount(), c.got.Max(), c.orig.TotalCount(), c.orig.Max())
		}
		for _, q := range []float64{50, 95, 99, 99.9} {
			if a, b := c.orig.ValueAtQuantile(q), c.got.ValueAtQuantile(q); a != b {
				t.Errorf("%s p%v: %d after round trip, %d before", c.name, q, b, a)
			}
		}
	}
	if got := h.latency.Max(); got < histHighestUS*999/1000 {
		t.Errorf("a 20 min latency was not clamped to the top of the range: max %d µs", got)
	}
	if _, err := decodePayload([]byte(`{"v":99}`)); err == nil {
		t.Error("a payload of an unknown version decoded")
	}
}

// BenchmarkLiveObservePlace is the order path's cost of the live figures
// (go test -bench LiveObserve -run ^$ ./internal/metrics/).
func BenchmarkLiveObservePlace(b *testing.B) {
	r := NewLiveRecorder(nil, nil)
	t0 := time.Now()
	o := order.Observation{SaleID: 1, Strategy: "mutex", Outcome: order.OutcomeOK, Arrived: t0,
		Acquired: t0.Add(time.Millisecond), Total: 3 * time.Millisecond, LockWait: time.Millisecond, Critical: time.Millisecond}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.ObservePlace(o)
		}
	})
}
