package runs

import (
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
)

// LimitView compares a lock strategy's throughput with its physical limit.
// A lock serialises its critical sections, so it can complete at most one
// per (critical-section time + the lock's own round trips). Both are measured
// in the run itself, server side: a request's mean time minus its mean wait
// in the lock's queue is what one holder costs the lock (section, acquire and
// release round trips, and the request's own handling). The limit is
// 1000 / that, per second; the ratio is the sections completed per second
// over it. `make bench` computes the same ratio with an uncontended
// calibration run for the round trips instead.
type LimitView struct {
	SectionsPerS float64 `json:"sections_per_s"`
	ServiceMS    float64 `json:"service_ms"` // mean server time minus mean lock wait
	LimitPerS    float64 `json:"limit_per_s"`
	Ratio        float64 `json:"ratio"`
}

// limitOf returns nil for strategies that take no lock (nothing is
// serialised, so there is no such limit) or before there is data.
func limitOf(strategy string, server *metrics.SaleLive, durationS float64) *LimitView {
	s, err := lockstrategy.Lookup(strategy)
	if err != nil || s.Expiry == lockstrategy.ExpiryNone || server == nil || durationS <= 0 {
		return nil
	}
	granted := server.Requests - server.Outcomes["lock_timeout"] - server.Outcomes["canceled"]
	service := server.Latency.Mean - server.LockWait.Mean
	if granted <= 0 || service <= 0 {
		return nil
	}
	l := &LimitView{SectionsPerS: float64(granted) / durationS, ServiceMS: service, LimitPerS: 1000 / service}
	l.Ratio = l.SectionsPerS / l.LimitPerS
	return l
}
