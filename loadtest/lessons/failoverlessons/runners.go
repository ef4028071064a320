package failoverlessons

import (
	"context"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// scenarioRun is a lesson's run, with this family's steps as its methods.
type scenarioRun struct{ *lessons.ScenarioRun }

// Runners maps each lesson of this family (the lock service fails, fails over or changes its members) to its script.
var Runners = lessons.Family(func(sc *lessons.ScenarioRun) *scenarioRun { return &scenarioRun{sc} },
	map[string]func(context.Context, *scenarioRun) (string, bool, error){
		"redis-restart":                  redisRestart,
		"redlock-minority":               redlockMinority,
		"sentinel-failover":              sentinelFailover,
		"zk-ensemble-server-killed":      zkEnsembleServerKilled,
		"db-lock-single-point":           dbLockSinglePoint,
		"redis-single-point":             redisSinglePoint,
		"redlock-clock-jump":             redlockClockJump,
		"consistent-hashing-ring-change": consistentHashingRingChange,
	})
