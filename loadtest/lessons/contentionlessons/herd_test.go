package contentionlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// herd-rate-limit passes only when the limit refused repeat clicks (429,
// Retry-After, layer rate_limit) before the lock: fewer lock sections than
// without it, and both runs sold exactly. Each broken condition fails,
// naming why.
func TestRateLimitVerdictNeedsFewerSections(t *testing.T) {
	exact := shopapi.SaleView{InitialStock: 20, Sold: 20}
	off := rateSide{limit: 0, limitedOK: true, truth: herdTruth{view: exact, sections: 450, layers: map[string]int64{"lock": 450}}}
	on := rateSide{limit: 1, limited: 290, limitedOK: true,
		truth: herdTruth{view: exact, sections: 160, layers: map[string]int64{"lock": 160, "rate_limit": 290}}}
	if ok, why := rateLimitVerdict(off, on); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(off, on *rateSide)
		why  string
	}{
		{"as many sections with the limit", func(off, on *rateSide) { on.truth.sections = off.truth.sections }, "sections"},
		{"nothing refused", func(_, on *rateSide) { on.limited, on.truth.layers = 0, map[string]int64{"lock": 450} }, "no click was refused"},
		{"a refusal without Retry-After", func(_, on *rateSide) { on.limitedOK = false }, "Retry-After"},
		{"refused without a limit", func(off, _ *rateSide) { off.limited = 1 }, "without the limit 1"},
		{"oversold with the limit", func(_, on *rateSide) { on.truth.view.Sold, on.truth.view.Oversold = 21, 1 }, "exactly"},
	} {
		o, n := off, on
		tc.edit(&o, &n)
		ok, why := rateLimitVerdict(o, n)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
