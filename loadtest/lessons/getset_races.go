package lessons

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The two races of the SETNX + GETSET lock besides the clocks (a release
// that deletes a lock it no longer owns, a losing GETSET that overwrites
// the winner's expiry),
// on a sale: each holds one of the lock's two-step moves open (a fault of
// the shop, getset_release_gap or getset_takeover_gap) until another buyer
// has moved, and reads what followed from the database and from the
// replicas' counts of those moves (GET /api/faults: getset).

// getsetGaps is target's GET /api/faults getset.
type getsetGaps struct {
	Held            int64 `json:"held"`
	Overwrites      int64 `json:"overwrites"`
	RefusedReleases int64 `json:"refused_releases"`
	FreedOthers     int64 `json:"freed_others"`
}

func (sc *ScenarioRun) getsetGaps(ctx context.Context, target string) (getsetGaps, error) {
	var out struct {
		GetSet *getsetGaps `json:"getset"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults", nil, http.StatusOK, &out); err != nil {
		return getsetGaps{}, err
	}
	if out.GetSet == nil {
		return getsetGaps{}, fmt.Errorf("%s: GET /api/faults has no getset (an older shop?)", target)
	}
	return *out.GetSet, nil
}

// waitGaps waits (30 s at most) until target's getset counts satisfy ok.
func (sc *ScenarioRun) waitGaps(ctx context.Context, target, what string, ok func(getsetGaps) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		g, err := sc.getsetGaps(ctx, target)
		if err == nil && ok(g) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s on %s: %w (last read: %+v, %v)", what, target, ctx.Err(), g, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// held is a waitGaps condition: n gaps held open.
func held(n int64) func(getsetGaps) bool { return func(g getsetGaps) bool { return g.Held == n } }

// The release race's timings: A's lock lives getsetRaceTTL; A's release
// waits at most getsetReleaseGap for B's takeover (under the order flow's
// 5 s unlock bound); B stays inside its section getsetRaceStall, less than
// its own TTL, so that only A's DEL can let C in beside it.
const (
	getsetRaceTTL    = 2500 * time.Millisecond
	getsetReleaseGap = 4800 * time.Millisecond
	getsetRaceStall  = 2 * time.Second
)

// getsetReleaseRace: redis-getset releases by GET, compare, DEL. A's release
// waits between its GET (its own value) and its DEL until its lock has
// expired and B, on the other replica, has taken it over with GETSET; B
// stays inside its section; A's DEL deletes B's lock; C walks in with SETNX
// beside B: two holders. redis releases with one compare-and-delete script:
// B waits for A, C for B.
func getsetReleaseRace(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	t1, t2 := sc.Targets[0], sc.last()
	var parts []string
	pass := true
	for _, strategy := range []string{"redis-getset", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario getset-release-race", Strategy: strategy,
			Stock: 10, TTLMS: int(getsetRaceTTL.Milliseconds())})
		if err != nil {
			return "", false, err
		}
		if err := sc.warm(ctx, v.ID, t1, t2); err != nil {
			return "", false, err
		}
		before, err := sc.getsetGaps(ctx, t1)
		if err != nil {
			return "", false, err
		}
		getset := strategy == "redis-getset"
		var a <-chan string
		if getset {
			if err := sc.fault(ctx, t1, map[string]any{"kind": "getset_release_gap", "ms": getsetReleaseGap.Milliseconds()}); err != nil {
				return "", false, err
			}
			a = sc.orderAsync(ctx, t1, v.ID, "buyer-1")
			if err := sc.waitGaps(ctx, t1, "buyer-1's release held between its GET and its DEL", held(1)); err != nil {
				return "", false, err
			}
		} else {
			a = sc.orderAsync(ctx, t1, v.ID, "buyer-1")
		}
		if err := sc.fault(ctx, t2, map[string]any{"kind": "pause_holder", "ms": getsetRaceStall.Milliseconds()}); err != nil {
			return "", false, err
		}
		b := sc.orderAsync(ctx, t2, v.ID, "buyer-2")
		if err := sc.waitPaused(ctx, t2); err != nil {
			return "", false, err
		}
		if getset { // A's DEL has landed once its gap is closed
			if err := sc.waitGaps(ctx, t1, "buyer-1's DEL after buyer-2's takeover", held(0)); err != nil {
				return "", false, err
			}
		}
		bHeld, err := sc.pausedHolders(ctx, t2)
		if err != nil {
			return "", false, err
		}
		c := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-3")
		aKind, bKind := <-a, <-b
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		after, err := sc.getsetGaps(ctx, t1)
		if err != nil {
			return "", false, err
		}
		freed := after.FreedOthers - before.FreedOthers
		orders := aKind == shopapi.KindOrder && bKind == shopapi.KindOrder && c == shopapi.KindOrder
		if getset {
			pass = pass && orders && bHeld > 0 && freed >= 1 && got.Violations >= 1
			parts = append(parts, fmt.Sprintf("redis-getset: buyer-1's DEL deleted buyer-2's lock %d time(s) (buyer-2 inside its section when buyer-3 "+
				"was sent: %v); buyer-1 %s, buyer-2 %s, buyer-3 %s; %s", freed, bHeld > 0, aKind, bKind, c, describe(got)))
		} else {
			pass = pass && orders && got.Violations == 0 && got.LostUpdates == 0
			parts = append(parts, fmt.Sprintf("redis: buyer-1 %s, buyer-2 %s, buyer-3 %s (buyer-3 waited for buyer-2); %s", aKind, bKind, c, describe(got)))
		}
	}
	return strings.Join(parts, " | "), pass, nil
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
func getsetLoserOverwrites(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	// B's stall is short beside the TTL: on a quiet machine C's expiry, from
	// before it waited, comes after B is done; only a slow one brings it early.
	const ttl, bStall = 4 * time.Second, 1500 * time.Millisecond
	t1, t2 := sc.Targets[0], sc.last()
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario getset-loser-overwrites", Strategy: "redis-getset",
		Stock: 10, TTLMS: int(ttl.Milliseconds())})
	if err != nil {
		return "", false, err
	}
	if err := sc.warm(ctx, v.ID, t1, t2); err != nil {
		return "", false, err
	}
	b1, err := sc.getsetGaps(ctx, t1)
	if err != nil {
		return "", false, err
	}
	b2, err := sc.getsetGaps(ctx, t2)
	if err != nil {
		return "", false, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "crash_after_setnx"}); err != nil {
		return "", false, err
	}
	aKind := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-1")
	if err := sc.fault(ctx, t2, map[string]any{"kind": "getset_takeover_gap", "ms": (4 * ttl).Milliseconds()}); err != nil {
		return "", false, err
	}
	c := sc.orderAsync(ctx, t2, v.ID, "buyer-3")
	if err := sc.waitGaps(ctx, t2, "buyer-3 between its GET of buyer-1's expired value and its GETSET", held(1)); err != nil {
		return "", false, err
	}
	// B stays inside its section until C's losing GETSET has landed: else
	// B's own two-step release could run first (its GET, C's GETSET, its
	// DEL deleting C's value: the release race, another lesson).
	if err := sc.fault(ctx, t1, map[string]any{"kind": "pause_holder", "ms": bStall.Milliseconds()}); err != nil {
		return "", false, err
	}
	b := sc.orderAsync(ctx, t1, v.ID, "buyer-2")
	if err := sc.waitPaused(ctx, t1); err != nil {
		return "", false, err
	}
	if err := sc.waitGaps(ctx, t2, "buyer-3's losing GETSET", func(g getsetGaps) bool { return g.Overwrites > b2.Overwrites }); err != nil {
		return "", false, err
	}
	bKind := <-b
	start := time.Now()
	dKind := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-4")
	dWait := time.Since(start)
	cKind := <-c
	got, err := sc.settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	a1, err := sc.getsetGaps(ctx, t1)
	if err != nil {
		return "", false, err
	}
	a2, err := sc.getsetGaps(ctx, t2)
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
		aKind, overwrites, bKind, refused, way, dKind, dWait.Seconds(), cKind, describe(got)), pass, nil
}
