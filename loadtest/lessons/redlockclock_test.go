package lessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of redlock-clock-jump passes only when the jump let buyer-2
// in beside buyer-1 on both sides, buyer-1's stale write landed without the
// watchdog and was stopped with it: each broken condition fails it.
func TestRedlockClockJumpHoldsOnlyOnTwoHolders(t *testing.T) {
	unsafe := clockJumpSide{a: shopapi.KindOrder, b: shopapi.KindOrder, view: shopapi.SaleView{Violations: 1, LostUpdates: 1}}
	fix := clockJumpSide{watchdog: true, a: "lock_lost", b: shopapi.KindOrder, view: shopapi.SaleView{Violations: 1}}
	if ok, why := redlockClockJumpHolds(unsafe, fix); !ok {
		t.Fatalf("the jump's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name        string
		unsafe, fix func(*clockJumpSide)
		why         string
	}{
		{"buyer-2 waited (no jump)", func(s *clockJumpSide) { s.b = "lock_timeout" }, nil, "did not hold"},
		{"no overlap on the fix's side", nil, func(s *clockJumpSide) { s.view.Violations = 0 }, "did not hold"},
		{"the same watchdog on both sides", func(s *clockJumpSide) { s.watchdog = true }, nil, "not watchdog off"},
		{"buyer-1 stopped without the watchdog", func(s *clockJumpSide) { s.a = "lock_lost"; s.view.LostUpdates = 0 }, nil, "wrote no stale"},
		{"buyer-1 wrote with the watchdog", nil, func(s *clockJumpSide) { s.a = shopapi.KindOrder }, "was not stopped"},
		{"a lost update with the watchdog", nil, func(s *clockJumpSide) { s.view.LostUpdates = 1 }, "update was lost"},
	} {
		u, f := unsafe, fix
		if tc.unsafe != nil {
			tc.unsafe(&u)
		}
		if tc.fix != nil {
			tc.fix(&f)
		}
		ok, why := redlockClockJumpHolds(u, f)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
