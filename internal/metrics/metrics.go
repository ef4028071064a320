// Package metrics holds the shop's Prometheus collectors. Each Metrics owns a
// registry of its own rather than the global default, so that a test (or a
// process running several replicas in-process) can build as many as it likes
// without "duplicate metrics collector registration" panics.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seckill-lab/seckill/internal/order"
)

// Metrics is the set of order-path collectors on one registry. It implements
// order.Recorder. The zero value is not usable; call New.
type Metrics struct {
	queue    queueMetrics
	reg      *prometheus.Registry
	orders   *prometheus.CounterVec
	answers  *prometheus.CounterVec
	duration *prometheus.HistogramVec
	lockWait *prometheus.HistogramVec
	retries  *prometheus.CounterVec
	critical *prometheus.HistogramVec
	fairPair *prometheus.CounterVec
	fairInv  *prometheus.CounterVec
	faults   *prometheus.CounterVec
}

var _ order.Recorder = (*Metrics)(nil)

// latencyBuckets span 0.25 ms to about 16 s, doubling: an uncontended DB
// order takes about a millisecond, a lock wait may reach the 10 s lock-wait
// bound. These are for Prometheus scrapes; the per-sale HDR histograms with
// exact, mergeable percentiles are LiveRecorder's (live_recorder.go).
var latencyBuckets = prometheus.ExponentialBuckets(0.00025, 2, 17)

// New returns collectors registered on a fresh registry, together with the
// Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		orders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_orders_total",
			Help: "Order attempts by lock strategy and outcome (ok, sold_out, lock_timeout, conflict, ...).",
		}, []string{"strategy", "outcome"}),
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_order_answers_total",
			Help: "Order answers by lock strategy, the layer that gave them (opening, ticket, rate_limit, idempotency, sold_out_cache, lock, database, store) and code (ok or the error code).",
		}, []string{"strategy", "layer", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seckill_order_duration_seconds",
			Help:    "Server-side time of one order attempt, lock wait included.",
			Buckets: latencyBuckets,
		}, []string{"strategy"}),
		lockWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seckill_lock_wait_seconds",
			Help:    "Time spent waiting for the lock; lock-free strategies observe 0.",
			Buckets: latencyBuckets,
		}, []string{"strategy"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_cas_retries_total",
			Help: "Compare-and-set rounds lost and retried (db-optimistic).",
		}, []string{"strategy"}),
		critical: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "seckill_critical_section_seconds",
			Help:    "Time from lock held to just before unlock, for attempts that held the lock.",
			Buckets: latencyBuckets,
		}, []string{"strategy"}),
		fairPair: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_lock_grant_pairs_total",
			Help: "Adjacent lock grants compared for arrival order (fairness = 1 - inverted/pairs).",
		}, []string{"strategy"}),
		fairInv: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_lock_grant_inversions_total",
			Help: "Adjacent lock grants whose later-served buyer had arrived first.",
		}, []string{"strategy"}),
		faults: newFaultsInjected(),
	}
	m.reg.MustRegister(m.orders, m.answers, m.duration, m.lockWait, m.retries, m.critical, m.fairPair, m.fairInv, m.faults,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.queue = newQueueMetrics(m.reg)
	return m
}

// ObservePlace records one order attempt. Labels come from the registry's
// strategy names and order's outcome names only, never from request input,
// so their cardinality stays bounded.
func (m *Metrics) ObservePlace(o order.Observation) {
	m.orders.WithLabelValues(o.Strategy, o.Outcome).Inc()
	if o.Layer != "" {
		m.answers.WithLabelValues(o.Strategy, o.Layer, o.Outcome).Inc()
	}
	m.duration.WithLabelValues(o.Strategy).Observe(o.Total.Seconds())
	m.lockWait.WithLabelValues(o.Strategy).Observe(o.LockWait.Seconds())
	if o.Retries > 0 {
		m.retries.WithLabelValues(o.Strategy).Add(float64(o.Retries))
	}
	if !o.Acquired.IsZero() {
		m.critical.WithLabelValues(o.Strategy).Observe(o.Critical.Seconds())
	}
}

// AddFairness adds one window's grant-order counts (see Fairness). The
// LiveRecorder calls it as it publishes: fairness needs a window of grants
// sorted by time, which a single observation cannot give.
func (m *Metrics) AddFairness(strategy string, f Fairness) {
	if f.Pairs == 0 {
		return
	}
	m.fairPair.WithLabelValues(strategy).Add(float64(f.Pairs))
	m.fairInv.WithLabelValues(strategy).Add(float64(f.Inverted))
}

// Registry returns the registry, for callers that add collectors of their own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
