package contentionlessons

import (
	"context"
)

// mutexAcrossReplicas: the same contended load (brokenThenHeldSettings,
// the buyers alternating over the replicas) on a `mutex` sale, whose lock
// is each replica's own, and on a `db-pessimistic` one.
func mutexAcrossReplicas(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	return sc.BrokenThenHeldAcross(ctx, "scenario mutex-across-replicas", "mutex", "db-pessimistic", true)
}
