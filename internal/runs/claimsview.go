package runs

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/seckill-lab/seckill/internal/claims"
)

// ClaimsView is the seeds' claims judged on the newest finished runs that
// share one set of settings: each run's steps ran one after the other with
// the same load, work and replicas, which is as close to side by side as
// the runs get, and the runs repeated give each figure its spread. The
// runs count orders per second only: the claims judged on Redis commands
// or on redsync's masters say that make bench measures them.
type ClaimsView struct {
	RunID        uint64         `json:"run_id"`        // the newest run judged; 0: no finished run had a figure
	RunIDs       []uint64       `json:"run_ids"`       // every run judged, newest first
	Conditions   string         `json:"conditions"`    // the runs' shared settings
	ConditionsZh string         `json:"conditions_zh"` // the same in Chinese
	Claims       []claims.Claim `json:"claims"`
}

// claimsScan is how many of the newest finished runs Claims looks through;
// claimsRuns how many runs of the same settings it judges at most.
const (
	claimsScan = 50
	claimsRuns = 5
)

// Claims judges the claims on up to claimsRuns finished runs with the
// settings of the newest finished run that has a finished step of redis,
// of zookeeper and of a database lock (failing that, of the newest
// finished run with any step): orders per second of each step, the
// client's count, one figure per run. Runs of other settings are never
// mixed in; with fewer than claims.MinRuns runs nothing is decided.
func (s *Service) Claims(ctx context.Context) (ClaimsView, error) {
	views, err := s.List(ctx, claimsScan, StatusDone)
	if err != nil {
		return ClaimsView{}, err
	}
	pick, fallback := -1, -1
	for i := range views {
		ops := stepRates(views[i])
		if len(ops) == 0 {
			continue
		}
		if fallback < 0 {
			fallback = i
		}
		_, r := ops["redis"]
		_, z := ops["zookeeper"]
		db := slices.ContainsFunc(claims.DBLocks, func(n string) bool { _, ok := ops[n]; return ok })
		if r && z && db {
			pick = i
			break
		}
	}
	if pick < 0 {
		pick = fallback
	}
	if pick < 0 {
		return noRunView(), nil
	}
	key := settingsOf(views[pick])
	perSecond := map[string][]float64{}
	var ids []uint64
	for i := pick; i < len(views) && len(ids) < claimsRuns; i++ {
		ops := stepRates(views[i])
		if len(ops) == 0 || settingsOf(views[i]) != key {
			continue
		}
		ids = append(ids, views[i].ID)
		for name, v := range ops {
			perSecond[name] = append(perSecond[name], v)
		}
	}
	cond := conditions(views[pick], ids)
	return ClaimsView{RunID: ids[0], RunIDs: ids, Conditions: cond.En, ConditionsZh: cond.Zh,
		Claims: claims.Judge(claims.Figures{Conditions: cond.En, ConditionsZh: cond.Zh, PerSecond: perSecond})}, nil
}

// noRunView is the claims when no finished run has a figure: each says
// what it lacks, in both languages.
func noRunView() ClaimsView {
	none := claims.NoRunConditions()
	return ClaimsView{RunIDs: []uint64{}, Conditions: none.En, ConditionsZh: none.Zh,
		Claims: claims.Judge(claims.Figures{Conditions: none.En, ConditionsZh: none.Zh})}
}

// stepRates is the orders per second of each finished step.
func stepRates(v RunView) map[string]float64 {
	out := map[string]float64{}
	for _, st := range v.Steps {
		if st.Status == StatusDone && st.Client.OrdersPerS > 0 {
			out[st.Strategy] = st.Client.OrdersPerS
		}
	}
	return out
}

// settingsOf is a run's settings but its strategies, and how many replicas
// it targeted: the runs whose figures may be judged together.
func settingsOf(v RunView) string {
	c := v.Config
	c.Strategy, c.Strategies = "", nil
	b, _ := json.Marshal(struct {
		Config
		Targets int
	}{c, len(v.Targets)})
	return string(b)
}

// conditions are the runs' shared settings, in English and in Chinese.
func conditions(v RunView, ids []uint64) claims.Text {
	c := v.Config
	return claims.RunConditions(claims.RunSettings{RunIDs: ids, Buyers: c.Buyers, Concurrency: c.Concurrency,
		Rate: c.Rate, WorkMS: c.WorkMS, Replicas: len(v.Targets), Stock: c.Stock})
}
