package failoverlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of redlock-clock-jump passes only when, on both sides, the
// jump cut a key on redlock-2 and buyer-2 was seen inside beside buyer-1;
// without the watchdog buyer-1's stale write landed; with it, a renewal
// was seen to fail (lease event lost) and buyer-1 was stopped. Each broken
// condition fails it.
func TestRedlockClockJumpHoldsOnlyOnTwoHolders(t *testing.T) {
	unsafe := clockJumpSide{a: shopapi.KindOrder, b: shopapi.KindOrder, keysCut: 1, together: true,
		view: shopapi.SaleView{Violations: 1, LostUpdates: 1}}
	fix := clockJumpSide{watchdog: true, a: "lock_lost", b: shopapi.KindOrder, keysCut: 1, together: true, lost: true,
		view: shopapi.SaleView{Violations: 1}}
	if ok, why := redlockClockJumpHolds(unsafe, fix); !ok {
		t.Fatalf("the jump's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name        string
		unsafe, fix func(*clockJumpSide)
		why         string
	}{
		{"the jump cut no key", func(s *clockJumpSide) { s.keysCut = 0 }, nil, "cut no key"},
		{"the jump cut no key with the watchdog", nil, func(s *clockJumpSide) { s.keysCut = 0 }, "cut no key"},
		{"buyer-2 came after buyer-1 left", nil, func(s *clockJumpSide) { s.together = false }, "not inside"},
		{"buyer-2 waited (no jump)", func(s *clockJumpSide) { s.b = "lock_timeout" }, nil, "did not hold"},
		{"no overlap on the fix's side", nil, func(s *clockJumpSide) { s.view.Violations = 0 }, "did not hold"},
		{"the same watchdog on both sides", func(s *clockJumpSide) { s.watchdog = true }, nil, "not watchdog off"},
		{"buyer-1 stopped without the watchdog", func(s *clockJumpSide) { s.a = "lock_lost"; s.view.LostUpdates = 0 }, nil, "wrote no stale"},
		{"no failed renewal seen with the watchdog", nil, func(s *clockJumpSide) { s.lost = false }, "no lease event lost"},
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
