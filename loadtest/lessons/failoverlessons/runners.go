package failoverlessons

import (
	"context"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// scenarioRun is a lesson's run, with this family's steps as its methods.
type scenarioRun struct{ *lessons.ScenarioRun }

// script makes one of this family's lessons a lessons.ScenarioFunc.
func script(run func(context.Context, *scenarioRun) (string, bool, error)) lessons.ScenarioFunc {
	return func(ctx context.Context, sc *lessons.ScenarioRun) (string, bool, error) {
		return run(ctx, &scenarioRun{sc})
	}
}

// Runners maps each lesson of this family (the lock service fails, fails over or changes its members) to its script.
var Runners = map[string]lessons.ScenarioFunc{
	"redis-restart":                  script(redisRestart),
	"redlock-minority":               script(redlockMinority),
	"sentinel-failover":              script(sentinelFailover),
	"zk-ensemble-server-killed":      script(zkEnsembleServerKilled),
	"db-lock-single-point":           script(dbLockSinglePoint),
	"redis-single-point":             script(redisSinglePoint),
	"redlock-clock-jump":             script(redlockClockJump),
	"consistent-hashing-ring-change": script(consistentHashingRingChange),
}
