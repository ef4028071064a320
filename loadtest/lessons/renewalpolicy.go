package lessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// policySide is what one policy for a failed renewal cost.
type policySide struct {
	strategy string
	a, b     string // buyer-1's (the holder's) and buyer-2's answers
	view     shopapi.SaleView
}

// refused: orders the policy gave up (the holder stopped: lock_lost).
func (p policySide) refused() int {
	if p.a == "lock_lost" {
		return 1
	}
	return 0
}

func (p policySide) String() string {
	return fmt.Sprintf("%s: buyer-1 %s, buyer-2 %s: %d order given up, %d overlap, %d lost update; %s",
		p.strategy, p.a, p.b, p.refused(), p.view.Violations, p.view.LostUpdates, describe(p.view))
}

// renewalPoliciesHold is the lesson's verdict: on both sides buyer-2 got the
// lock the restart lost under buyer-1; the conservative holder (redis)
// stopped (an order given up, nothing lost); the aggressive one
// (redis-aggressive) wrote anyway (no order given up, a lost update beside
// an overlap). why names the first failed condition.
func renewalPoliciesHold(conservative, aggressive policySide) (ok bool, why string) {
	switch {
	case conservative.b != shopapi.KindOrder || aggressive.b != shopapi.KindOrder:
		return false, "buyer-2 did not buy on both sides"
	case conservative.refused() != 1:
		return false, conservative.strategy + ": buyer-1 was not stopped (" + conservative.a + ")"
	case conservative.view.LostUpdates != 0 || conservative.view.Oversold != 0:
		return false, conservative.strategy + " lost an update"
	case aggressive.a != shopapi.KindOrder:
		return false, aggressive.strategy + ": buyer-1 did not write (" + aggressive.a + ")"
	case aggressive.view.Violations < 1 || aggressive.view.LostUpdates < 1:
		return false, aggressive.strategy + ": no overlap and lost update counted"
	}
	return true, ""
}

// renewalFailsAggressive: renewal-fails' setup on both policies. buyer-1 on
// the first replica holds the lock (TTL 1.5 s, watchdog on) in a 4 s
// business step (slow_work, before its lock check); Redis restarts without
// persistence; the watchdog's next renewal finds the lock gone; buyer-2 on
// the second replica buys. redis closes Lost() and the check stops buyer-1;
// redis-aggressive's holder is not told and writes its stale stock.
func renewalFailsAggressive(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	var sides []policySide
	for _, strategy := range []string{"redis", "redis-aggressive"} {
		p, err := sc.renewalPolicy(ctx, strategy)
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

// renewalPolicy runs one side of renewal-fails-aggressive.
func (sc *ScenarioRun) renewalPolicy(ctx context.Context, strategy string) (policySide, error) {
	p := policySide{strategy: strategy}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario renewal-fails-aggressive", Strategy: strategy, Stock: 10, TTLMS: 1500})
	if err != nil {
		return p, err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return p, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "slow_work", "ms": 4000}); err != nil {
		return p, err
	}
	a := sc.orderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.waitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its slow step
		return p, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "restart_redis", "node": "redis"}); err != nil {
		return p, err
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		p.b = sc.C.Order(ctx, shopapi.OrdersURL(sc.last(), v.ID), "buyer-2")
		if (p.b != "backend_down" && p.b != shopapi.KindTransport) || time.Now().After(deadline) {
			break
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return p, err
		}
	}
	p.a = <-a
	p.view, err = sc.settled(ctx, v.ID)
	return p, err
}
