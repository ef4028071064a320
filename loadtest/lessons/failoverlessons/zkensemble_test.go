package failoverlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// zk-ensemble-server-killed passes only when the burst was served while
// the killed server was still down (two servers of three), besides buyer-1
// keeping its lock and buyer-2 waiting for it: each broken condition
// fails, naming why.
func TestZKEnsembleNeedsTheBurstWhileDown(t *testing.T) {
	good := zkEnsembleOutcome{aHeld: true, aKind: shopapi.KindOrder, b: shopapi.KindOrder, bWhileDown: true,
		burstWhileDown: true, burstOrders: 16, got: shopapi.SaleView{Sold: 20}}
	if ok, why := good.holds(); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(*zkEnsembleOutcome)
		why  string
	}{
		{"the server back before the burst ended", func(o *zkEnsembleOutcome) { o.burstWhileDown = false }, "back before the burst ended"},
		{"buyer-1 lost its stall", func(o *zkEnsembleOutcome) { o.aHeld = false }, "stalled"},
		{"buyer-1 lost its lock", func(o *zkEnsembleOutcome) { o.aKind = "lock_lost" }, "buyer-1"},
		{"buyer-2 sent with three servers", func(o *zkEnsembleOutcome) { o.bWhileDown = false }, "buyer-2 was sent"},
		{"buyer-2 timed out", func(o *zkEnsembleOutcome) { o.b = "lock_timeout" }, "buyer-2"},
		{"the burst short", func(o *zkEnsembleOutcome) { o.burstOrders = 15 }, "15 of 16"},
		{"an overlap", func(o *zkEnsembleOutcome) { o.got.Violations = 1 }, "violations 1"},
	} {
		o := good
		tc.edit(&o)
		ok, why := o.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
