package lessons

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Skipped is a lesson that cannot run on these replicas (a backend it
// needs is down or not configured): what is missing, and the command that
// makes it run. RunOne reports it as SKIP, which fails nothing.
type Skipped struct {
	missing string
	enable  string
}

func (s *Skipped) Error() string {
	return fmt.Sprintf("SKIPPED: %s; to run it: %s", s.missing, s.enable)
}

// startServices is the command that starts every backend on their usual
// ports (the replicas find a started backend again by themselves).
const startServices = "bash scripts/services.sh up (or make demo, which runs it)"

// backendEnv names the variable that configures each backend of a replica.
var backendEnv = map[string]string{
	"db": config.EnvMySQLDSN, "redis": config.EnvRedisAddr, "redlock": config.EnvRedlockAddrs,
	"zookeeper": config.EnvZKServers, "etcd": config.EnvEtcdEndpoints, "sentinel": config.EnvSentinelAddrs,
}

// preflight checks, on every target (a lesson may use the first, the
// Last or all of them), that each of its strategies is available (GET
// /api/strategies): a lesson on a backend that is down would only say
// ERROR, never why.
func (sc *ScenarioRun) preflight(ctx context.Context, s Scenario) error {
	for _, t := range sc.Targets {
		all, err := sc.C.Strategies(ctx, t)
		if err != nil {
			return err
		}
		for _, name := range s.Strategies {
			i := slices.IndexFunc(all, func(st shopapi.StrategyInfo) bool { return st.Name == name })
			if i < 0 {
				return &Skipped{missing: fmt.Sprintf("%s has no strategy %s (an older shop?)", t, name),
					enable: "rebuild and restart the replicas (make demo)"}
			}
			if !all[i].Available {
				return unavailable(t, all[i])
			}
		}
	}
	return nil
}

// unavailable says which backends of st are not up on target and how to
// bring them.
func unavailable(target string, st shopapi.StrategyInfo) *Skipped {
	var bad []string
	enable := startServices
	for _, need := range st.Needs {
		state := st.Backends[need]
		if state == lockstrategy.StateUp {
			continue
		}
		bad = append(bad, need+" "+state)
		if state == lockstrategy.StateNotConfigured {
			enable = fmt.Sprintf("start the replicas with %s set (make demo sets every backend)", backendEnv[need])
		}
	}
	sort.Strings(bad)
	return &Skipped{missing: fmt.Sprintf("strategy %s is not available on %s (%s)", st.Name, target, strings.Join(bad, ", ")),
		enable: enable}
}

// SkipOf turns the shop's answers that mean "this replica lacks what the
// lesson needs" into a skip: a ZooKeeper that is not the ensemble
// (not_ensemble), a strategy whose backend went away since the preflight
// (strategy_unavailable).
func SkipOf(err error) (*Skipped, bool) {
	var s *Skipped
	if errors.As(err, &s) {
		return s, true
	}
	var h *shopapi.HTTPStatusError
	if !errors.As(err, &h) {
		return nil, false
	}
	switch h.Code {
	case "not_ensemble":
		return &Skipped{missing: "the replica's ZooKeeper is not the three-server ensemble (" + err.Error() + ")",
			enable: "bash scripts/services.sh up (it starts the ensemble unless --no-zk-ensemble) and the replicas' " +
				config.EnvZKServers + " on it (" + config.DefaultZKEnsembleServers + ", the default)"}, true
	case "strategy_unavailable":
		return &Skipped{missing: err.Error(), enable: startServices}, true
	}
	return nil, false
}
