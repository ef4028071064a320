package leaselessons

import (
	"context"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// scenarioRun is a lesson's run, with this family's steps as its methods.
type scenarioRun struct{ *lessons.ScenarioRun }

// Runners maps each lesson of this family (a lock that expires, is lost or is released under its holder) to its script.
var Runners = lessons.Family(func(sc *lessons.ScenarioRun) *scenarioRun { return &scenarioRun{sc} },
	map[string]func(context.Context, *scenarioRun) (string, bool, error){
		"setnx-expire-crash":       setnxExpireCrash,
		"del-without-owner":        delWithoutOwner,
		"ttl-shorter-than-work":    ttlShorterThanWork,
		"pause-past-ttl":           pausePastTTL,
		"getset-expiry":            getsetExpiry,
		"getset-release-race":      getsetReleaseRace,
		"getset-loser-overwrites":  getsetLoserOverwrites,
		"renewal-fails":            renewalFails,
		"renewal-fails-aggressive": renewalFailsAggressive,
		"acquire-reply-lost":       acquireReplyLost,
		"etcd-lease-expiry":        etcdLeaseExpiry,
		"zk-session-expiry":        zkSessionExpiry,
		"zk-dead-holder":           zkDeadHolder,
	})
