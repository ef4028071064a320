package leaselessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The setting of renewal-fails and renewal-fails-aggressive.
const (
	// renewalTTL is the redis lock's TTL; the watchdog renews every third.
	renewalTTL    = 1500 * time.Millisecond
	renewalPeriod = renewalTTL / 3
	// renewalFreeze is how long Redis answers nothing (freeze_redis): two
	// TTLs, six renewal periods, in which no renewal gets through.
	renewalFreeze = 3 * time.Second
	// renewalStep is buyer-1's business step (slow_work, before its lock
	// check): it must outlast the freeze, the loss, the thaw and buyer-2's
	// way in (a replica takes up to its next probe, 1 s, to see Redis back).
	renewalStep = 8 * time.Second
)

// policySide is what one policy for a failed renewal showed.
type policySide struct {
	strategy string
	a, b     string // buyer-1's (the holder's) and buyer-2's answers
	// together: buyer-2 was inside its section while buyer-1 was still in
	// its business step (both had read the stock).
	together bool
	// loss is buyer-1's lease as the lease events show it.
	loss lessons.LossTrail
	view shopapi.SaleView
}

// refused: orders the policy gave up (the holder stopped: lock_lost).
func (p policySide) refused() int {
	if p.a == "lock_lost" {
		return 1
	}
	return 0
}

func (p policySide) String() string {
	return fmt.Sprintf("%s: buyer-1's lease lost %s after its last renewal (went_on %v); buyer-1 %s, buyer-2 %s (inside beside buyer-1: %v): "+
		"%d order given up, %d overlap, %d lost update; %s",
		p.strategy, lossWords(p.loss), p.loss.WentOn, p.a, p.b, p.together, p.refused(), p.view.Violations, p.view.LostUpdates, lessons.Describe(p.view))
}

// lossWords says when the loss came: "3.1 s", or "never" (no event lost).
func lossWords(t lessons.LossTrail) string {
	if !t.Lost {
		return "never"
	}
	return fmt.Sprintf("%.1f s", t.SinceRenewal.Seconds())
}

// renewalKeptFailing says why p's run did not show buyer-1's renewal keep
// failing while buyer-2 came in beside it ("" when it did): its lease was
// declared lost (lease event lost) two renewal periods or more after its
// last renewal (one renewal that found the key gone comes within one), and
// buyer-2 bought from inside while buyer-1 was still in its step.
func (p policySide) renewalKeptFailing() string {
	switch {
	case !p.loss.Lost:
		return "no lease event lost on buyer-1's replica: the failed renewal was not observed"
	case p.loss.SinceRenewal < 2*renewalPeriod:
		return fmt.Sprintf("buyer-1's lease was lost %v after its last renewal, under two renewal periods (%v): not a renewal that kept failing",
			p.loss.SinceRenewal, 2*renewalPeriod)
	case p.b != shopapi.KindOrder:
		return "buyer-2 did not buy (" + p.b + ")"
	case !p.together:
		return "buyer-2 was not inside while buyer-1 was still in its step"
	}
	return ""
}

// stopped says why the conservative holder did not stop ("" when it did):
// lock_lost, no went_on, nothing lost.
func (p policySide) stopped() string {
	switch {
	case p.a != "lock_lost":
		return "buyer-1 was not stopped (" + p.a + ")"
	case p.loss.WentOn:
		return "buyer-1 went on (went_on)"
	case p.view.LostUpdates != 0 || p.view.Oversold != 0:
		return "lost an update"
	}
	return ""
}

// renewalFailsHolds is renewal-fails' verdict: the renewal kept failing
// and the conservative holder stopped. why names the first failed
// condition.
func renewalFailsHolds(p policySide) (ok bool, why string) {
	for _, why := range []string{p.renewalKeptFailing(), p.stopped()} {
		if why != "" {
			return false, p.strategy + ": " + why
		}
	}
	return true, ""
}

// renewalPoliciesHold is renewal-fails-aggressive's verdict: on both sides
// buyer-1's renewal kept failing and buyer-2 got in beside it; the
// conservative holder (redis) stopped (an order given up, nothing lost);
// the aggressive one (redis-aggressive) was told as well and went on by
// choice (went_on), and wrote (no order given up, a lost update beside an
// overlap). why names the first failed condition.
func renewalPoliciesHold(conservative, aggressive policySide) (ok bool, why string) {
	for _, p := range []policySide{conservative, aggressive} {
		if why := p.renewalKeptFailing(); why != "" {
			return false, p.strategy + ": " + why
		}
	}
	if ok, why := renewalFailsHolds(conservative); !ok {
		return false, why
	}
	switch {
	case !aggressive.loss.WentOn:
		return false, aggressive.strategy + ": no went_on: buyer-1's knowing go-on was not recorded"
	case aggressive.a != shopapi.KindOrder:
		return false, aggressive.strategy + ": buyer-1 did not write (" + aggressive.a + ")"
	case aggressive.view.Violations < 1 || aggressive.view.LostUpdates < 1:
		return false, aggressive.strategy + ": no overlap and lost update counted"
	}
	return true, ""
}

// renewalFailsAggressive: renewal-fails' setup on both policies (renewal.go,
// renewalPolicy). redis closes Lost() and the check stops buyer-1;
// redis-aggressive's lease closes Lost() too, and its holder, by its
// policy, writes its stale stock and records that it went on.
func renewalFailsAggressive(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var sides []policySide
	for _, strategy := range []string{"redis", "redis-aggressive"} {
		p, err := sc.renewalPolicy(ctx, "renewal-fails-aggressive", strategy)
		if err != nil {
			return "", false, err
		}
		sides = append(sides, p)
	}
	ok, why := renewalPoliciesHold(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}
