package contentionlessons

import (
	"context"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// scenarioRun is a lesson's run, with this family's steps as its methods.
type scenarioRun struct{ *lessons.ScenarioRun }

// Runners maps each lesson of this family (many buyers on one sale: which lock, which wait, which store) to its script.
var Runners = lessons.Family(func(sc *lessons.ScenarioRun) *scenarioRun { return &scenarioRun{sc} },
	map[string]func(context.Context, *scenarioRun) (string, bool, error){
		"mutex-across-replicas":     mutexAcrossReplicas,
		"optimistic-vs-pessimistic": optimisticVsPessimistic,
		"cache-db-drift":            cacheDBDrift,
		"queue-durability":          queueDurability,
		"herd-sold-out-cache":       herdSoldOutCache,
		"herd-rate-limit":           herdRateLimit,
		"reentrancy":                reentrancy,
		"db-lock-reentrant":         dbLockReentrant,
		"two-level-handoff":         twoLevelHandoff,
		"lock-per-batch":            lockPerBatch,
		"redlock-herd":              redlockHerd,
		"split-hot-row":             splitHotRow,
		"for-update-needs-tx":       forUpdateNeedsTx,
		"polling-vs-subscribe":      pollingVsSubscribe,
		"db-lock-crashed-holder":    dbLockCrashedHolder,
	})
