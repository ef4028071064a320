package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// queueMetrics are the order queue's and the reservations' Prometheus
// figures. Queue length and pending are read from Redis at scrape time
// (QueueGauges), so every replica reports the same stream.
type queueMetrics struct {
	confirmed *prometheus.CounterVec
	failed    *prometheus.CounterVec
	confirm   prometheus.Histogram
	expired   prometheus.Counter
	drift     *prometheus.GaugeVec
}

func newQueueMetrics(reg *prometheus.Registry) queueMetrics {
	q := queueMetrics{
		confirmed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_queue_confirmed_total",
			Help: "Queued orders this replica's consumer persisted, by sale.",
		}, []string{"sale"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "seckill_queue_failed_total",
			Help: "Queued orders that could not be made (their unit went back), by reason.",
		}, []string{"reason"}),
		confirm: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "seckill_queue_confirm_seconds",
			Help:    "From the 202 (Redis taking the unit) to the order's commit.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "seckill_reservations_expired_total",
			Help: "Reservations this replica expired (their unit went back).",
		}),
		drift: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "seckill_stock_drift",
			Help: "The last reconciliation of a sale's Redis stock against the database (0: consistent).",
		}, []string{"sale"}),
	}
	reg.MustRegister(q.confirmed, q.failed, q.confirm, q.expired, q.drift)
	return q
}

// ObserveConfirmed counts a queued order persisted (orderqueue.Observer).
func (m *Metrics) ObserveConfirmed(saleID uint64, accepted, committed time.Time) {
	m.queue.confirmed.WithLabelValues(strconv.FormatUint(saleID, 10)).Inc()
	if !accepted.IsZero() {
		m.queue.confirm.Observe(committed.Sub(accepted).Seconds())
	}
}

// ObserveFailed counts a queued order that failed (orderqueue.Observer).
func (m *Metrics) ObserveFailed(_ uint64, reason string) {
	m.queue.failed.WithLabelValues(reason).Inc()
}

// ObserveExpired counts reservations expired.
func (m *Metrics) ObserveExpired(n int) { m.queue.expired.Add(float64(n)) }

// ObserveDrift sets a sale's last reconciliation.
func (m *Metrics) ObserveDrift(saleID uint64, drift int64) {
	m.queue.drift.WithLabelValues(strconv.FormatUint(saleID, 10)).Set(float64(drift))
}

// QueueGauges registers gauges of the queue's length and pending entries,
// read at scrape time by read (which answers -1 when it cannot).
func (m *Metrics) QueueGauges(read func() (length, pending int64)) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seckill_queue_length",
			Help: "Entries in the order stream (acknowledged ones are deleted)."},
			func() float64 { l, _ := read(); return float64(l) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "seckill_queue_pending",
			Help: "Entries delivered to a consumer and not yet acknowledged."},
			func() float64 { _, p := read(); return float64(p) }),
	)
}
