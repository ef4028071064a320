package metrics

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// SaleTruth is one sale's invariants as the database counts them
// (inventory.Stats), with whether the sale was meant to be safe: a safe
// strategy with its safety settings on (a lease watchdog turned off makes
// redis and redlock unsafe by design).
type SaleTruth struct {
	Strategy    string
	Safe        bool
	Oversold    int64
	LostUpdates int64
}

// truthReadTimeout bounds the database read a scrape makes.
const truthReadTimeout = 2 * time.Second

var (
	oversoldDesc = prometheus.NewDesc("seckill_sale_oversold",
		"Units sold beyond the stock, summed over the newest sales, by strategy and whether it was meant to be safe (from the database; every replica reports the same).",
		[]string{"strategy", "safe"}, nil)
	lostUpdatesDesc = prometheus.NewDesc("seckill_sale_lost_updates",
		"|sold - (initial stock - stock)| summed over the newest sales, by strategy and whether it was meant to be safe (from the database).",
		[]string{"strategy", "safe"}, nil)
)

// saleTruthCollector reads the newest sales' invariants at scrape time, so
// that an alert on a safe strategy's oversell needs no loop of its own.
type saleTruthCollector struct {
	read func(ctx context.Context) ([]SaleTruth, error)
	log  *slog.Logger
}

func (c saleTruthCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- oversoldDesc
	ch <- lostUpdatesDesc
}

// Collect sums each (strategy, safe) pair's figures. A failed read gives no
// samples (the series go stale, which an alert on absence can catch) rather
// than a failed scrape that would hide every other figure.
func (c saleTruthCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), truthReadTimeout)
	defer cancel()
	truths, err := c.read(ctx)
	if err != nil {
		if c.log != nil {
			c.log.Warn("metrics: reading the sales' invariants failed", "err", err)
		}
		return
	}
	for k, t := range sumTruths(truths) {
		ch <- prometheus.MustNewConstMetric(oversoldDesc, prometheus.GaugeValue, float64(t.Oversold), k.strategy, k.safe)
		ch <- prometheus.MustNewConstMetric(lostUpdatesDesc, prometheus.GaugeValue, float64(t.LostUpdates), k.strategy, k.safe)
	}
}

type truthKey struct{ strategy, safe string }

// sumTruths adds up the sales of each strategy and safety.
func sumTruths(truths []SaleTruth) map[truthKey]SaleTruth {
	out := map[truthKey]SaleTruth{}
	for _, t := range truths {
		k := truthKey{t.Strategy, strconv.FormatBool(t.Safe)}
		s := out[k]
		s.Oversold += t.Oversold
		s.LostUpdates += t.LostUpdates
		out[k] = s
	}
	return out
}

// SaleTruths registers the gauges seckill_sale_oversold and
// seckill_sale_lost_updates, read by read at every scrape.
func (m *Metrics) SaleTruths(read func(ctx context.Context) ([]SaleTruth, error), log *slog.Logger) {
	m.reg.MustRegister(saleTruthCollector{read: read, log: log})
}
