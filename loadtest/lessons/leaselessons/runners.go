package leaselessons

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

// Runners maps each lesson of this family (a lock that expires, is lost or is released under its holder) to its script.
var Runners = map[string]lessons.ScenarioFunc{
	"setnx-expire-crash":       script(setnxExpireCrash),
	"del-without-owner":        script(delWithoutOwner),
	"ttl-shorter-than-work":    script(ttlShorterThanWork),
	"pause-past-ttl":           script(pausePastTTL),
	"getset-expiry":            script(getsetExpiry),
	"getset-release-race":      script(getsetReleaseRace),
	"getset-loser-overwrites":  script(getsetLoserOverwrites),
	"renewal-fails":            script(renewalFails),
	"renewal-fails-aggressive": script(renewalFailsAggressive),
	"acquire-reply-lost":       script(acquireReplyLost),
	"etcd-lease-expiry":        script(etcdLeaseExpiry),
	"zk-session-expiry":        script(zkSessionExpiry),
	"zk-dead-holder":           script(zkDeadHolder),
}
