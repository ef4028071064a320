package contentionlessons

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

// Runners maps each lesson of this family (many buyers on one sale: which lock, which wait, which store) to its script.
var Runners = map[string]lessons.ScenarioFunc{
	"mutex-across-replicas":     script(mutexAcrossReplicas),
	"optimistic-vs-pessimistic": script(optimisticVsPessimistic),
	"cache-db-drift":            script(cacheDBDrift),
	"queue-durability":          script(queueDurability),
	"herd-sold-out-cache":       script(herdSoldOutCache),
	"herd-rate-limit":           script(herdRateLimit),
	"reentrancy":                script(reentrancy),
	"db-lock-reentrant":         script(dbLockReentrant),
	"two-level-handoff":         script(twoLevelHandoff),
	"lock-per-batch":            script(lockPerBatch),
	"for-update-needs-tx":       script(forUpdateNeedsTx),
	"polling-vs-subscribe":      script(pollingVsSubscribe),
	"db-lock-crashed-holder":    script(dbLockCrashedHolder),
}
