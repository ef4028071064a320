package lessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of renewal-fails-aggressive passes only when each policy paid
// its own price: each broken condition fails it.
func TestRenewalPoliciesHoldOnlyWhenEachPaysItsPrice(t *testing.T) {
	cons := policySide{strategy: "redis", a: "lock_lost", b: shopapi.KindOrder, view: shopapi.SaleView{Violations: 1}}
	aggr := policySide{strategy: "redis-aggressive", a: shopapi.KindOrder, b: shopapi.KindOrder, view: shopapi.SaleView{Violations: 1, LostUpdates: 1}}
	if ok, why := renewalPoliciesHold(cons, aggr); !ok {
		t.Fatalf("the policies' evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name   string
		change func(c, a *policySide)
		why    string
	}{
		{"buyer-2 never bought", func(c, a *policySide) { a.b = "lock_timeout" }, "did not buy"},
		{"the conservative holder wrote", func(c, a *policySide) { c.a = shopapi.KindOrder }, "was not stopped"},
		{"a lost update on the conservative side", func(c, a *policySide) { c.view.LostUpdates = 1 }, "redis lost"},
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
