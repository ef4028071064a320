package leaselessons

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The two races of the SETNX + GETSET lock besides the clocks (a release
// that deletes a lock it no longer owns, a losing GETSET that overwrites
// the winner's expiry),
// on a sale: each holds one of the lock's two-step moves open (a fault of
// the shop, getset_release_gap or getset_takeover_gap) until another buyer
// has moved, and reads what followed from the database and from the
// replicas' counts of those moves (GET /api/faults: getset).

// The release race's timings. redis-getset: A's lock lives getsetRaceTTL;
// A's release waits at most getsetReleaseGap for B's takeover (under the
// order flow's 5 s unlock bound); B stays inside its section
// getsetRaceStall, less than its own TTL, so that only A's DEL can let C in
// beside it. redis (watchdog off): A's slow step (casRaceSlow, before its
// lock check) outlives its lock (casRaceTTL) by 1 s, so that B, waiting in
// the queue, has taken the expired lock over (100 ms after the expiry on a
// quiet machine) before A's release; B stays inside casRaceStall, 2 s
// within its own TTL (del-without-owner's margins: 1 s once was not enough
// on a loaded make test), and A's release lands within that stall.
const (
	getsetRaceTTL    = 2500 * time.Millisecond
	getsetReleaseGap = 4800 * time.Millisecond
	getsetRaceStall  = 2 * time.Second
	casRaceTTL       = 4 * time.Second
	casRaceSlow      = casRaceTTL + time.Second
	casRaceStall     = 2 * time.Second
)

// raceSide is what one side of getset-release-race showed.
type raceSide struct {
	strategy string
	a, b, c  string // buyer-1's, buyer-2's and buyer-3's answers
	// bHeld: buyer-2 was still inside its section (stalled) when buyer-3
	// was sent, after buyer-1's release.
	bHeld bool
	// freedOthers: redis-getset's releases on the first replica whose DEL
	// deleted another holder's lock (Δ freed_others, GET /api/faults getset).
	freedOthers int64
	trail       raceTrail // redis: buyer-1's release as the lease events show it
	view        shopapi.SaleView
}

func (s raceSide) String() string {
	if s.strategy == "redis-getset" {
		return fmt.Sprintf("redis-getset (ttl %d ms): buyer-1's DEL deleted buyer-2's lock %d time(s) (buyer-2 inside its section when "+
			"buyer-3 was sent: %v); buyer-1 %s, buyer-2 %s, buyer-3 %s; %s", s.view.TTLMS, s.freedOthers, s.bHeld, s.a, s.b, s.c, lessons.Describe(s.view))
	}
	return fmt.Sprintf("%s (ttl %d ms, watchdog %v): buyer-1 %s past its TTL; its release refused %d time(s) (lock taken over by then: %v), "+
		"freed another's lock %d time(s); buyer-2 inside when buyer-3 was sent: %v; buyer-2 %s, buyer-3 %s; "+
		"%d overlaps began after the refused release; %s", s.strategy, s.view.TTLMS, s.view.Watchdog, s.a, s.trail.refused,
		s.trail.takenOver, s.trail.freed, s.bHeld, s.b, s.c, s.trail.overlapsAfter, lessons.Describe(s.view))
}

// raceTrail is what the lease events show of buyer-1's stale release.
type raceTrail struct {
	// refused, freed: releases that found the lock another's or gone and
	// left it (release_refused), or deleted another holder's lock
	// (freed_other).
	refused, freed int
	// takenOver: before the first refused release a lease of a later
	// token had been granted: the lock the release met was another's.
	takenOver bool
	// overlapsAfter: overlaps that began at or after the first stale
	// release (refused or freed): the ones a release let in.
	overlapsAfter int
}

// raceTrailOf reads a sale's stale releases from its lease events, and
// the overlaps (their starts) that began after the first.
func raceTrailOf(leases []lessons.LeaseEvent, overlapFroms []float64) raceTrail {
	var t raceTrail
	var first, refused *lessons.LeaseEvent
	for i, l := range leases {
		switch l.Event {
		case "release_refused":
			t.refused++
			if refused == nil || l.At < refused.At {
				refused = &leases[i]
			}
		case "freed_other":
			t.freed++
		default:
			continue
		}
		if first == nil || l.At < first.At {
			first = &leases[i]
		}
	}
	if first == nil {
		return t
	}
	for _, l := range leases {
		if refused != nil && l.Event == "granted" && l.Token > refused.Token && l.At <= refused.At {
			t.takenOver = true
		}
	}
	for _, from := range overlapFroms {
		if from >= first.At {
			t.overlapsAfter++
		}
	}
	return t
}

// raceTrail reads sale id's timeline from target until a stale release
// shows (lease events are written in the background; 5 s at most).
func (sc *scenarioRun) raceTrail(ctx context.Context, target string, id uint64) (raceTrail, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		url := fmt.Sprintf("%s/api/sales/%d/timeline?to=%d", target, id, time.Now().Add(time.Minute).UnixMilli())
		var tl struct {
			Leases   []lessons.LeaseEvent `json:"leases"`
			Overlaps []struct {
				From float64 `json:"from"`
			} `json:"overlaps"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &tl); err != nil {
			return raceTrail{}, err
		}
		froms := make([]float64, len(tl.Overlaps))
		for i, o := range tl.Overlaps {
			froms[i] = o.From
		}
		t := raceTrailOf(tl.Leases, froms)
		if t.refused+t.freed > 0 || time.Now().After(deadline) {
			return t, nil
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return t, err
		}
	}
}

// getsetReleaseRaceHolds is the lesson's verdict: both releases came late,
// after the lock had changed hands. redis-getset: the three buyers bought,
// buyer-2 was still inside when buyer-3 was sent, buyer-1's DEL deleted
// another holder's lock (freed_others >= 1) and a buyer entered beside
// buyer-2 (violations >= 1). redis, watchdog off: buyer-1 outlived its TTL
// and its check stopped it (lock_lost); its compare-and-delete, after
// buyer-2's grant, was refused and freed nothing; buyer-2 was still inside
// when buyer-3 was sent, both bought, nobody entered after the refused
// release, nothing oversold or lost (the overlap of buyer-2 with buyer-1's
// expired lease, before the release, is the expiry's). why names the first
// condition that failed.
func getsetReleaseRaceHolds(getset, cas raceSide) (ok bool, why string) {
	switch {
	case getset.a != shopapi.KindOrder || getset.b != shopapi.KindOrder || getset.c != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-1 %s, buyer-2 %s, buyer-3 %s, want three orders", getset.strategy, getset.a, getset.b, getset.c)
	case !getset.bHeld:
		return false, getset.strategy + ": buyer-2 was not inside its section when buyer-3 was sent"
	case getset.freedOthers < 1:
		return false, getset.strategy + " freed no other holder's lock"
	case getset.view.Violations < 1:
		return false, getset.strategy + ": no buyer entered beside buyer-2"
	case cas.view.Watchdog:
		return false, cas.strategy + " ran with its watchdog on: buyer-1's lease could not run out"
	case cas.a != "lock_lost":
		return false, fmt.Sprintf("%s: buyer-1 answered %s, not stopped past its TTL (lock_lost)", cas.strategy, cas.a)
	case cas.b != shopapi.KindOrder || cas.c != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-2 %s, buyer-3 %s, want two orders", cas.strategy, cas.b, cas.c)
	case !cas.bHeld:
		return false, cas.strategy + ": buyer-2 was not inside its section when buyer-3 was sent"
	case cas.trail.refused < 1:
		return false, cas.strategy + " met no stale release to refuse"
	case !cas.trail.takenOver:
		return false, cas.strategy + ": the lock had not changed hands before the refused release (nobody's was at stake)"
	case cas.trail.freed != 0:
		return false, cas.strategy + " freed another holder's lock"
	case cas.trail.overlapsAfter != 0:
		return false, cas.strategy + ": a buyer entered after the refused release"
	case cas.view.Oversold != 0 || cas.view.LostUpdates != 0:
		return false, cas.strategy + " oversold or lost an update"
	}
	return true, ""
}

// getsetReleaseRace: redis-getset releases by GET, compare, DEL. A's release
// waits between its GET (its own value) and its DEL until its lock has
// expired and B, on the other replica, has taken it over with GETSET; B
// stays inside its section; A's DEL deletes B's lock; C walks in with SETNX
// beside B: two holders. redis releases with one compare-and-delete script;
// its A is made late too (a slow step past its TTL, watchdog off): B takes
// the expired lock over, A's check stops it, A's release finds B's lock and
// leaves it, and C waits for B.
func getsetReleaseRace(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	getset, err := sc.getsetReleaseSide(ctx)
	if err != nil {
		return "", false, err
	}
	cas, err := sc.casReleaseSide(ctx)
	if err != nil {
		return "", false, err
	}
	ok, why := getsetReleaseRaceHolds(getset, cas)
	out := getset.String() + " | " + cas.String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// getsetReleaseSide is the redis-getset side: A's release held open
// between its GET and its DEL (getset_release_gap) until B has taken over.
func (sc *scenarioRun) getsetReleaseSide(ctx context.Context) (raceSide, error) {
	t1, t2 := sc.Targets[0], sc.Last()
	s := raceSide{strategy: "redis-getset"}
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario getset-release-race", Strategy: s.strategy,
		Stock: 10, TTLMS: int(getsetRaceTTL.Milliseconds())})
	if err != nil {
		return s, err
	}
	if err := sc.Warm(ctx, v.ID, t1, t2); err != nil {
		return s, err
	}
	before, err := sc.GetsetGaps(ctx, t1)
	if err != nil {
		return s, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.GetSetReleaseGap, "ms": getsetReleaseGap.Milliseconds()}); err != nil {
		return s, err
	}
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitGaps(ctx, t1, "buyer-1's release held between its GET and its DEL", lessons.Held(1)); err != nil {
		return s, err
	}
	if err := sc.Fault(ctx, t2, map[string]any{"kind": faultkind.PauseHolder, "ms": getsetRaceStall.Milliseconds()}); err != nil {
		return s, err
	}
	b := sc.OrderAsync(ctx, t2, v.ID, "buyer-2")
	if err := sc.WaitPaused(ctx, t2); err != nil {
		return s, err
	}
	// A's DEL has landed once its gap is closed.
	if err := sc.WaitGaps(ctx, t1, "buyer-1's DEL after buyer-2's takeover", lessons.Held(0)); err != nil {
		return s, err
	}
	n, err := sc.PausedHolders(ctx, t2)
	if err != nil {
		return s, err
	}
	s.bHeld = n > 0
	s.c = sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-3")
	s.a, s.b = <-a, <-b
	if s.view, err = sc.Settled(ctx, v.ID); err != nil {
		return s, err
	}
	after, err := sc.GetsetGaps(ctx, t1)
	if err != nil {
		return s, err
	}
	s.freedOthers = after.FreedOthers - before.FreedOthers
	return s, nil
}

// casReleaseSide is the redis side, watchdog off: A's slow step
// (slow_work) outlives its TTL, B takes the expired lock over and stalls
// inside (pause_holder), A's check stops it and A releases while B holds.
func (sc *scenarioRun) casReleaseSide(ctx context.Context) (raceSide, error) {
	t1, t2 := sc.Targets[0], sc.Last()
	s := raceSide{strategy: "redis"}
	off := false
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario getset-release-race", Strategy: s.strategy,
		Stock: 10, TTLMS: int(casRaceTTL.Milliseconds()), Watchdog: &off})
	if err != nil {
		return s, err
	}
	if err := sc.Warm(ctx, v.ID, t1, t2); err != nil {
		return s, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.SlowWork, "ms": casRaceSlow.Milliseconds()}); err != nil {
		return s, err
	}
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its slow step
		return s, err
	}
	if err := sc.Fault(ctx, t2, map[string]any{"kind": faultkind.PauseHolder, "ms": casRaceStall.Milliseconds()}); err != nil {
		return s, err
	}
	b := sc.OrderAsync(ctx, t2, v.ID, "buyer-2")
	if err := sc.WaitPaused(ctx, t2); err != nil { // buyer-2 has taken the expired lock over
		return s, err
	}
	s.a = <-a // buyer-1 has released
	n, err := sc.PausedHolders(ctx, t2)
	if err != nil {
		return s, err
	}
	s.bHeld = n > 0
	s.c = sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-3")
	s.b = <-b
	if s.view, err = sc.Settled(ctx, v.ID); err != nil {
		return s, err
	}
	s.trail, err = sc.raceTrail(ctx, t1, v.ID)
	return s, err
}

// getsetLoserOverwrites: A takes redis-getset and dies (crash_after_setnx):
// its expiry frees the lock. C, on the second replica, reads that expiry as
// past and waits before its GETSET (getset_takeover_gap) until B, on the
// first, has taken the lock over with its own GETSET (B then stays inside
// its section until C's GETSET has landed). C's GETSET loses, and has
// written C's expiry over B's: B's release finds C's value and is refused. The lock now ends at C's expiry, which C computed before
// it waited: after B is done (the lock is held by nobody until then, and D
// waits) or, on a slow machine, while B still works (C or D takes it beside
// B: an overlap). Either way B's own expiry is gone; the lesson asserts the
// overwrite and the refused release, and reports which way it went.
func getsetLoserOverwrites(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	// B's stall is short beside the TTL: on a quiet machine C's expiry, from
	// before it waited, comes after B is done; only a slow one brings it early.
	const ttl, bStall = 4 * time.Second, 1500 * time.Millisecond
	t1, t2 := sc.Targets[0], sc.Last()
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario getset-loser-overwrites", Strategy: "redis-getset",
		Stock: 10, TTLMS: int(ttl.Milliseconds())})
	if err != nil {
		return "", false, err
	}
	if err := sc.Warm(ctx, v.ID, t1, t2); err != nil {
		return "", false, err
	}
	b1, err := sc.GetsetGaps(ctx, t1)
	if err != nil {
		return "", false, err
	}
	b2, err := sc.GetsetGaps(ctx, t2)
	if err != nil {
		return "", false, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.CrashAfterSetNX}); err != nil {
		return "", false, err
	}
	aKind := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-1")
	if err := sc.Fault(ctx, t2, map[string]any{"kind": faultkind.GetSetTakeoverGap, "ms": (4 * ttl).Milliseconds()}); err != nil {
		return "", false, err
	}
	c := sc.OrderAsync(ctx, t2, v.ID, "buyer-3")
	if err := sc.WaitGaps(ctx, t2, "buyer-3 between its GET of buyer-1's expired value and its GETSET", lessons.Held(1)); err != nil {
		return "", false, err
	}
	// B stays inside its section until C's losing GETSET has landed: else
	// B's own two-step release could run first (its GET, C's GETSET, its
	// DEL deleting C's value: the release race, another lesson).
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": bStall.Milliseconds()}); err != nil {
		return "", false, err
	}
	b := sc.OrderAsync(ctx, t1, v.ID, "buyer-2")
	if err := sc.WaitPaused(ctx, t1); err != nil {
		return "", false, err
	}
	if err := sc.WaitGaps(ctx, t2, "buyer-3's losing GETSET", func(g lessons.GetsetGaps) bool { return g.Overwrites > b2.Overwrites }); err != nil {
		return "", false, err
	}
	bKind := <-b
	start := time.Now()
	dKind := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-4")
	dWait := time.Since(start)
	cKind := <-c
	got, err := sc.Settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	a1, err := sc.GetsetGaps(ctx, t1)
	if err != nil {
		return "", false, err
	}
	a2, err := sc.GetsetGaps(ctx, t2)
	if err != nil {
		return "", false, err
	}
	overwrites, refused := a2.Overwrites-b2.Overwrites, a1.RefusedReleases-b1.RefusedReleases
	pass := aKind == "holder_crashed" && bKind == shopapi.KindOrder && overwrites >= 1 && refused >= 1 && got.Oversold == 0
	way := "buyer-3's expiry came after buyer-2 was done: the lock was held by nobody until then"
	if got.Violations > 0 {
		way = "buyer-3's expiry came while buyer-2 still worked: another buyer took the lock beside buyer-2"
	}
	return fmt.Sprintf("buyer-1 %s; buyer-3's losing GETSET overwrote the winner's expiry %d time(s); buyer-2 %s, its release refused %d "+
		"time(s); %s; buyer-4 %s after %.1f s; buyer-3 %s; %s",
		aKind, overwrites, bKind, refused, way, dKind, dWait.Seconds(), cKind, lessons.Describe(got)), pass, nil
}
