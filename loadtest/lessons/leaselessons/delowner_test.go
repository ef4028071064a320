package leaselessons

import (
	"strings"
	"testing"
)

// The verdict of del-without-owner passes only when the plain DEL is the
// one difference and it is seen at work: each broken condition fails it,
// naming why.
func TestDelWithoutOwnerHoldsOnlyOnTheDELsEvidence(t *testing.T) {
	unsafe := delSide{strategy: "redis-no-owner", ttlMS: 3000, freed: 1, overlapsAfter: 1}
	safe := delSide{strategy: "redis", ttlMS: 3000, refused: 1}
	if ok, why := delWithoutOwnerHolds(unsafe, safe); !ok {
		t.Fatalf("the DEL's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name         string
		unsafe, safe func(*delSide)
		why          string
	}{
		{"the watchdog on one side (the old setup)", nil, func(d *delSide) { d.renews = true }, "differ"},
		{"another TTL", nil, func(d *delSide) { d.ttlMS = 450 }, "differ"},
		{"an overlap from expiry alone", func(d *delSide) { d.freed = 0 }, nil, "freed no other"},
		{"a freed lock nobody used", func(d *delSide) { d.overlapsAfter = 0 }, nil, "no buyer entered"},
		{"the owner check freed a lock", nil, func(d *delSide) { d.freed = 1 }, "redis freed"},
		{"no stale release on the fix's side", nil, func(d *delSide) { d.refused = 0 }, "no stale release"},
		{"a buyer beside the holder on the fix's side", nil, func(d *delSide) { d.overlapsAfter = 1 }, "entered after the refused"},
		{"a lost update on the fix's side", nil, func(d *delSide) { d.view.LostUpdates = 1 }, "lost an update"},
	} {
		u, s := unsafe, safe
		if tc.unsafe != nil {
			tc.unsafe(&u)
		}
		if tc.safe != nil {
			tc.safe(&s)
		}
		ok, why := delWithoutOwnerHolds(u, s)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
