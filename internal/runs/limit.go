package runs

import (
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LimitView compares a lock strategy's throughput with its physical limit.
// A lock serialises its critical sections and hands itself over between
// two of them, so it completes at most 1 / (mean hold + mean hand-over to a
// buyer already waiting) sections per second. Both come from the step's own
// recorded sections, server side (sectionlog.Cycle); the ratio is the
// sections completed per second of their span over that limit: 1 means the
// lock was never free while a buyer waited (it was the bottleneck), less
// means it idled with nobody waiting. `make bench` reports the same ratio.
type LimitView struct {
	SectionsPerS float64 `json:"sections_per_s"`
	HoldMS       float64 `json:"hold_ms"`
	HandoverMS   float64 `json:"handover_ms"`
	LimitPerS    float64 `json:"limit_per_s"`
	Ratio        float64 `json:"ratio"`
}

// limitOf returns nil for strategies that take no lock (nothing is
// serialised, so there is no such limit) or before a section is recorded.
func limitOf(strategy string, sale *inventory.SaleView) *LimitView {
	s, err := lockstrategy.Lookup(strategy)
	if err != nil || s.Expiry == lockstrategy.ExpiryNone || sale == nil || sale.LockCycle.LimitPerS() == 0 {
		return nil
	}
	c := sale.LockCycle
	return &LimitView{SectionsPerS: round3(c.SectionsPerS()), HoldMS: round3(c.HoldMS), HandoverMS: round3(c.HandoverMS),
		LimitPerS: round3(c.LimitPerS()), Ratio: round3(c.Ratio())}
}
