package leaselessons

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// ttl-shorter-than-work passes without the watchdog only when the lease ran
// out under a holder and its check stopped it: overlapping sections, a
// lock_lost answer and no lost update; with it nothing breaks. Each broken
// condition fails, naming why.
func TestTTLShorterThanWorkNeedsTheHoldersCheck(t *testing.T) {
	off := map[string]int{shopapi.KindOrder: 2, "lock_lost": 1}
	offView := shopapi.SaleView{Sold: 2, Violations: 1}
	on := map[string]int{shopapi.KindOrder: 3}
	if ok, why := ttlSideHolds(false, off, 3, offView); !ok {
		t.Fatalf("watchdog off: the evidence failed: %s", why)
	}
	if ok, why := ttlSideHolds(true, on, 3, shopapi.SaleView{Sold: 3}); !ok {
		t.Fatalf("watchdog on: the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name     string
		watchdog bool
		kinds    map[string]int
		view     shopapi.SaleView
		why      string
	}{
		{"off: an overlap, nobody's check stopped", false, map[string]int{shopapi.KindOrder: 3}, shopapi.SaleView{Sold: 3, Violations: 1}, "lock_lost"},
		{"off: the stale write landed", false, off, shopapi.SaleView{Sold: 2, Violations: 1, LostUpdates: 1}, "lost_updates"},
		{"off: no overlap", false, off, shopapi.SaleView{Sold: 2}, "violations"},
		{"on: a lock_lost", true, map[string]int{shopapi.KindOrder: 2, "lock_lost": 1}, shopapi.SaleView{Sold: 2}, "lock_lost"},
		{"on: an overlap", true, on, shopapi.SaleView{Sold: 3, Violations: 1}, "broke"},
		{"on: nobody ordered", true, map[string]int{"lock_timeout": 3}, shopapi.SaleView{}, "nobody ordered"},
		{"on: another answer", true, map[string]int{shopapi.KindOrder: 2, "http_500": 1}, shopapi.SaleView{Sold: 2}, "neither"},
	} {
		ok, why := ttlSideHolds(tc.watchdog, tc.kinds, 3, tc.view)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// pause-past-ttl passes only on a sale whose watchdog was on (the stop
// froze it), buyer-2 in while buyer-1 was stopped, and buyer-1's stale
// write landing (no fencing) or refused (fencing).
func TestPausePastTTLNeedsTheWatchdogOn(t *testing.T) {
	plain := pauseOutcome{aStalled: true, aKind: shopapi.KindOrder, b: shopapi.KindOrder,
		got: shopapi.SaleView{Watchdog: true, Sold: 2, LostUpdates: 1}}
	fenced := pauseOutcome{fencing: true, aStalled: true, aKind: "fenced", b: shopapi.KindOrder,
		got: shopapi.SaleView{Watchdog: true, Fencing: true, Sold: 1, FencedWrites: 1}}
	for _, o := range []pauseOutcome{plain, fenced} {
		if ok, why := o.holds(); !ok {
			t.Fatalf("fencing %v: the evidence failed: %s", o.fencing, why)
		}
	}
	for _, tc := range []struct {
		name string
		o    pauseOutcome
		edit func(*pauseOutcome)
		why  string
	}{
		{"no watchdog", plain, func(o *pauseOutcome) { o.got.Watchdog = false }, "watchdog"},
		{"fenced, no watchdog", fenced, func(o *pauseOutcome) { o.got.Watchdog = false }, "watchdog"},
		{"buyer-1 answered first", plain, func(o *pauseOutcome) { o.aStalled = false }, "before buyer-2"},
		{"buyer-2 timed out", plain, func(o *pauseOutcome) { o.b = "lock_timeout" }, "buyer-2"},
		{"no lost update", plain, func(o *pauseOutcome) { o.got.LostUpdates = 0 }, "lost update"},
		{"fenced write landed", fenced, func(o *pauseOutcome) { o.aKind, o.got.FencedWrites, o.got.LostUpdates = shopapi.KindOrder, 0, 1 }, "fencing"},
	} {
		o := tc.o
		tc.edit(&o)
		ok, why := o.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// setnx-expire-crash passes on redis-setnx-expire only when buyer-2 waited
// out the lock wait before its lock_timeout: a quick lock_timeout is a
// failure for another reason, not the key without a TTL.
func TestSetnxExpireCrashNeedsBuyer2ToWaitOutTheLockWait(t *testing.T) {
	stuck := setnxSide{strategy: "redis-setnx-expire", a: "holder_crashed", b: "lock_timeout", took: 7 * time.Second}
	freed := setnxSide{strategy: "redis", a: "holder_crashed", b: shopapi.KindOrder, took: 20 * time.Millisecond,
		got: shopapi.SaleView{Sold: 1}}
	for _, s := range []setnxSide{stuck, freed} {
		if ok, why := s.holds(); !ok {
			t.Fatalf("%s: the evidence failed: %s", s.strategy, why)
		}
	}
	for _, tc := range []struct {
		name string
		s    setnxSide
		edit func(*setnxSide)
		why  string
	}{
		{"a quick lock_timeout", stuck, func(s *setnxSide) { s.took = 150 * time.Millisecond }, "did not wait out"},
		{"no crash", stuck, func(s *setnxSide) { s.a = shopapi.KindOrder }, "crash"},
		{"buyer-2 bought", stuck, func(s *setnxSide) { s.b, s.got.Sold = shopapi.KindOrder, 1 }, "lock_timeout"},
		{"redis: buyer-2 timed out", freed, func(s *setnxSide) { s.b, s.got.Sold = "lock_timeout", 0 }, "did not expire"},
		{"redis: oversold", freed, func(s *setnxSide) { s.got.Oversold = 1 }, "oversold"},
	} {
		s := tc.s
		tc.edit(&s)
		ok, why := s.holds()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
