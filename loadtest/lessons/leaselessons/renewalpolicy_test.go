package leaselessons

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// renewalEvidence is one side of a run that showed everything: buyer-1's
// renewal kept failing (lost 3 s after its last renewal), buyer-2 got in
// beside it.
func renewalEvidence(strategy, a string, wentOn bool, view shopapi.SaleView) policySide {
	return policySide{strategy: strategy, a: a, b: shopapi.KindOrder, together: true,
		loss: lessons.LossTrail{Lost: true, SinceRenewal: 3 * time.Second, WentOn: wentOn}, view: view}
}

// The verdict of renewal-fails-aggressive passes only when, on both sides,
// the renewal was seen to keep failing and each policy paid its own price:
// the conservative holder stopped, the aggressive one went on knowingly.
// Each broken condition fails it.
func TestRenewalPoliciesHoldOnlyWhenEachPaysItsPrice(t *testing.T) {
	cons := renewalEvidence("redis", "lock_lost", false, shopapi.SaleView{Violations: 1})
	aggr := renewalEvidence("redis-aggressive", shopapi.KindOrder, true, shopapi.SaleView{Violations: 1, LostUpdates: 1})
	if ok, why := renewalPoliciesHold(cons, aggr); !ok {
		t.Fatalf("the policies' evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name   string
		change func(c, a *policySide)
		why    string
	}{
		{"no loss seen on the aggressive side", func(c, a *policySide) { a.loss.Lost = false }, "redis-aggressive: no lease event lost"},
		{"no loss seen on the conservative side", func(c, a *policySide) { c.loss.Lost = false }, "redis: no lease event lost"},
		{"one renewal found the key gone", func(c, a *policySide) { a.loss.SinceRenewal = 600 * time.Millisecond }, "not a renewal that kept failing"},
		{"buyer-2 never bought", func(c, a *policySide) { a.b = "lock_timeout" }, "did not buy"},
		{"buyer-2 came after buyer-1's step", func(c, a *policySide) { c.together = false }, "not inside"},
		{"the conservative holder wrote", func(c, a *policySide) { c.a = shopapi.KindOrder }, "was not stopped"},
		{"the conservative holder went on", func(c, a *policySide) { c.loss.WentOn = true }, "went on"},
		{"a lost update on the conservative side", func(c, a *policySide) { c.view.LostUpdates = 1 }, "redis: lost an update"},
		{"the aggressive go-on not recorded", func(c, a *policySide) { a.loss.WentOn = false }, "no went_on"},
		{"the aggressive holder stopped", func(c, a *policySide) { a.a = "lock_lost" }, "did not write"},
		{"the aggressive write lost nothing", func(c, a *policySide) { a.view.LostUpdates = 0 }, "no overlap and lost update"},
	} {
		c, a := cons, aggr
		tc.change(&c, &a)
		ok, why := renewalPoliciesHold(c, a)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// renewal-fails is the conservative side alone: it fails as that side does.
func TestRenewalFailsHoldsOnlyWhenTheRenewalFailureStopsTheHolder(t *testing.T) {
	cons := renewalEvidence("redis", "lock_lost", false, shopapi.SaleView{Violations: 1})
	if ok, why := renewalFailsHolds(cons); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name   string
		change func(c *policySide)
		why    string
	}{
		{"no loss seen", func(c *policySide) { c.loss.Lost = false }, "no lease event lost"},
		{"one renewal found the key gone", func(c *policySide) { c.loss.SinceRenewal = 500 * time.Millisecond }, "not a renewal that kept failing"},
		{"buyer-2 came after buyer-1's step", func(c *policySide) { c.together = false }, "not inside"},
		{"the holder wrote", func(c *policySide) { c.a = shopapi.KindOrder }, "was not stopped"},
		{"a lost update", func(c *policySide) { c.view.LostUpdates = 1 }, "lost an update"},
	} {
		c := cons
		tc.change(&c)
		ok, why := renewalFailsHolds(c)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
