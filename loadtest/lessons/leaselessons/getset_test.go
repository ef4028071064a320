package leaselessons

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of getset-expiry passes only when redis-getset's takeover is
// the skew's: buyer-2 entered beside buyer-1 while buyer-1's lock was still
// within its TTL by the real clock (a takeover after it would be a plain
// expiry on a slow machine), and buyer-1's stale write was lost; redis kept
// buyer-2 waiting. Each broken condition fails it, naming why.
func TestGetSetExpiryHoldsOnlyOnTheSkewsTakeover(t *testing.T) {
	const ttl = 3 * time.Second
	aEnter := time.UnixMilli(1_000_000)
	getset := expirySide{strategy: "redis-getset", ttl: ttl, a: shopapi.KindOrder, b: shopapi.KindOrder, aHeld: true,
		aEnter: aEnter, bEnter: aEnter.Add(80 * time.Millisecond), view: shopapi.SaleView{Violations: 1, LostUpdates: 1}}
	server := expirySide{strategy: "redis", ttl: ttl, a: shopapi.KindOrder, b: shopapi.KindOrder, aHeld: true,
		aEnter: aEnter, bEnter: aEnter.Add(2100 * time.Millisecond)}
	if ok, why := getsetExpiryHolds(getset, server); !ok {
		t.Fatalf("the skew's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name           string
		getset, server func(*expirySide)
		why            string
	}{
		{"buyer-2 sent after buyer-1 held", func(s *expirySide) { s.aHeld = false }, nil, "redis-getset: buyer-2 was sent after"},
		{"buyer-2 refused", func(s *expirySide) { s.b = "lock_timeout" }, nil, "redis-getset: buyer-2 answered"},
		{"sections not found", func(s *expirySide) { s.bEnter = time.Time{} }, nil, "not in the timeline"},
		{"buyer-2 entered first", func(s *expirySide) { s.bEnter = aEnter.Add(-time.Millisecond) }, nil, "not after buyer-1"},
		{"buyer-2 entered after buyer-1's expiry (no skew needed)", func(s *expirySide) { s.bEnter = aEnter.Add(ttl) }, nil, "an expiry, not the skew"},
		{"no lost update", func(s *expirySide) { s.view.LostUpdates = 0 }, nil, "no stale write"},
		{"no overlap", func(s *expirySide) { s.view.Violations = 0 }, nil, "no stale write"},
		{"redis: buyer-2 sent after buyer-1 held", nil, func(s *expirySide) { s.aHeld = false }, "redis: buyer-2 was sent after"},
		{"redis: buyer-1 refused", nil, func(s *expirySide) { s.a = "lock_lost" }, "redis: buyer-1"},
		{"redis: an overlap", nil, func(s *expirySide) { s.view.Violations = 1 }, "redis let buyer-2 in"},
	} {
		g, r := getset, server
		if tc.getset != nil {
			tc.getset(&g)
		}
		if tc.server != nil {
			tc.server(&r)
		}
		ok, why := getsetExpiryHolds(g, r)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// lastEnters: buyer-1's and buyer-2's sections are the last each replica
// entered (the warm-ups entered before them); zero where a replica has none.
func TestLastEnters(t *testing.T) {
	sections := []trailSection{{Replica: "shop-1", EnterAt: 100}, {Replica: "shop-2", EnterAt: 200},
		{Replica: "shop-1", EnterAt: 1000}, {Replica: "shop-2", EnterAt: 1080}}
	a, b := lastEnters(sections, "shop-1", "shop-2")
	if !a.Equal(time.UnixMilli(1000)) || !b.Equal(time.UnixMilli(1080)) {
		t.Fatalf("lastEnters = %v, %v; want the 1000 ms and 1080 ms sections", a, b)
	}
	if a, b := lastEnters(sections[:1], "shop-1", "shop-2"); !a.Equal(time.UnixMilli(100)) || !b.IsZero() {
		t.Fatalf("no section on shop-2: %v, %v; want shop-1's and zero", a, b)
	}
}
