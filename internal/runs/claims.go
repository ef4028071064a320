package runs

import (
	"context"
	"fmt"
	"slices"

	"github.com/seckill-lab/seckill/internal/claims"
)

// ClaimsView is the seeds' performance claims judged on one finished run:
// its steps ran one after the other with the same load, work and replicas,
// which is as close to side by side as the runs get.
type ClaimsView struct {
	RunID      uint64         `json:"run_id"` // 0: no run had the strategies the claims need
	Conditions string         `json:"conditions"`
	Claims     []claims.Claim `json:"claims"`
}

// claimsScan is how many of the newest finished runs Claims looks through.
const claimsScan = 50

// Claims judges the claims on the newest finished run with a finished step
// of redis, of zookeeper and of a database lock (orders per second of each
// step, the client's count); failing that, on the newest finished run
// with any of them, whose missing figures the verdicts name.
func (s *Service) Claims(ctx context.Context) (ClaimsView, error) {
	views, err := s.List(ctx, claimsScan, StatusDone)
	if err != nil {
		return ClaimsView{}, err
	}
	var fallback *RunView
	for i := range views {
		ops := stepRates(views[i])
		if len(ops) == 0 {
			continue
		}
		if fallback == nil {
			fallback = &views[i]
		}
		_, r := ops["redis"]
		_, z := ops["zookeeper"]
		db := slices.ContainsFunc(claims.DBLocks, func(n string) bool { _, ok := ops[n]; return ok })
		if r && z && db {
			return judgeRun(views[i], ops), nil
		}
	}
	if fallback == nil {
		return ClaimsView{Conditions: "no finished run yet", Claims: claims.Judge(nil, "no finished run")}, nil
	}
	return judgeRun(*fallback, stepRates(*fallback)), nil
}

// stepRates is the orders per second of each finished step of the
// strategies the claims compare.
func stepRates(v RunView) map[string]float64 {
	out := map[string]float64{}
	for _, st := range v.Steps {
		if st.Status != StatusDone || st.Client.OrdersPerS <= 0 {
			continue
		}
		if st.Strategy == "redis" || st.Strategy == "zookeeper" || slices.Contains(claims.DBLocks, st.Strategy) {
			out[st.Strategy] = st.Client.OrdersPerS
		}
	}
	return out
}

func judgeRun(v RunView, ops map[string]float64) ClaimsView {
	c := v.Config
	load := fmt.Sprintf("%d workers", c.Concurrency)
	if c.Rate > 0 {
		load = fmt.Sprintf("%.0f req/s offered", c.Rate)
	}
	cond := fmt.Sprintf("run #%d, orders/s per step: %d buyers, %s, work %d ms, %d replicas, stock %d",
		v.ID, c.Buyers, load, c.WorkMS, len(v.Targets), c.Stock)
	return ClaimsView{RunID: v.ID, Conditions: cond, Claims: claims.Judge(ops, cond)}
}
