package leaselessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of getset-release-race passes only when both releases met a
// lock that had changed hands: redis-getset's DEL deleted buyer-2's lock
// and buyer-3 entered beside buyer-2; redis's buyer-1, past its TTL too
// (watchdog off), had its compare-and-delete refused on buyer-2's lock,
// freed nothing, and nobody entered after it. Each broken condition fails
// it, naming why.
func TestGetSetReleaseRaceHoldsOnlyOnAStaleRelease(t *testing.T) {
	getset := raceSide{strategy: "redis-getset", a: shopapi.KindOrder, b: shopapi.KindOrder, c: shopapi.KindOrder, bHeld: true,
		freedOthers: 1, view: shopapi.SaleView{Violations: 1, LostUpdates: 1}}
	cas := raceSide{strategy: "redis", a: "lock_lost", b: shopapi.KindOrder, c: shopapi.KindOrder, bHeld: true,
		trail: raceTrail{refused: 1, takenOver: true}, view: shopapi.SaleView{Violations: 1}}
	if ok, why := getsetReleaseRaceHolds(getset, cas); !ok {
		t.Fatalf("the stale releases' evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name        string
		getset, cas func(*raceSide)
		why         string
	}{
		{"the DEL freed nothing", func(s *raceSide) { s.freedOthers = 0 }, nil, "freed no other"},
		{"no overlap after the DEL", func(s *raceSide) { s.view.Violations = 0 }, nil, "no buyer entered beside"},
		{"buyer-2 gone before buyer-3", func(s *raceSide) { s.bHeld = false }, nil, "redis-getset: buyer-2 was not inside"},
		{"a getset buyer refused", func(s *raceSide) { s.c = "lock_timeout" }, nil, "redis-getset: buyer-1"},
		{"the watchdog on (no late release)", nil, func(s *raceSide) { s.view.Watchdog = true }, "watchdog"},
		{"buyer-1 released in time (the old setup)", nil, func(s *raceSide) { s.a = shopapi.KindOrder }, "not stopped past its TTL"},
		{"no stale release on the fix's side", nil, func(s *raceSide) { s.trail.refused = 0 }, "met no stale release"},
		{"refused on a free lock, nobody's at stake", nil, func(s *raceSide) { s.trail.takenOver = false }, "not changed hands"},
		{"the owner check freed a lock", nil, func(s *raceSide) { s.trail.freed = 1 }, "redis freed"},
		{"a buyer entered after the refused release", nil, func(s *raceSide) { s.trail.overlapsAfter = 1 }, "entered after the refused"},
		{"buyer-2 gone before buyer-3 on the fix's side", nil, func(s *raceSide) { s.bHeld = false }, "redis: buyer-2 was not inside"},
		{"buyer-3 refused on the fix's side", nil, func(s *raceSide) { s.c = "lock_timeout" }, "redis: buyer-2"},
		{"a lost update on the fix's side", nil, func(s *raceSide) { s.view.LostUpdates = 1 }, "lost an update"},
	} {
		g, c := getset, cas
		if tc.getset != nil {
			tc.getset(&g)
		}
		if tc.cas != nil {
			tc.cas(&c)
		}
		ok, why := getsetReleaseRaceHolds(g, c)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// raceTrailOf counts the stale releases, says whether a later token had
// been granted before the first refused one (the lock had changed hands),
// and counts the overlaps that began at or after the first stale release.
func TestRaceTrailOf(t *testing.T) {
	leases := []lessons.LeaseEvent{
		{Replica: "shop-1", Token: 10, Event: "granted", At: 1000},
		{Replica: "shop-2", Token: 20, Event: "granted", At: 3600},
		{Replica: "shop-1", Token: 10, Event: "expired", At: 3500},
		{Replica: "shop-1", Token: 10, Event: "release_refused", At: 4600},
		{Replica: "shop-2", Token: 20, Event: "released", At: 5700},
		{Replica: "shop-1", Token: 30, Event: "granted", At: 5700},
	}
	got := raceTrailOf(leases, []float64{3600})
	if want := (raceTrail{refused: 1, takenOver: true}); got != want {
		t.Fatalf("buyer-2 granted before buyer-1's refused release: %+v, want %+v", got, want)
	}
	// The refused release came before buyer-2's grant: the lock was free
	// (expired), nobody's was at stake; buyer-3's later grant is no takeover.
	leases[1].At = 4700
	if got := raceTrailOf(leases, []float64{4700}); got.takenOver || got.overlapsAfter != 1 {
		t.Fatalf("buyer-2 granted after the refused release: %+v, want no takeover and 1 overlap after", got)
	}
	freed := []lessons.LeaseEvent{{Replica: "shop-1", Token: 10, Event: "freed_other", At: 4600}}
	if got := raceTrailOf(freed, []float64{3600, 4700}); got.freed != 1 || got.refused != 0 || got.overlapsAfter != 1 {
		t.Fatalf("a freed lock: %+v, want freed 1 and the overlap after it", got)
	}
	if got := raceTrailOf(nil, []float64{3600}); got != (raceTrail{}) {
		t.Fatalf("no stale release: %+v, want nothing", got)
	}
}
