package leaselessons

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// expirySide is what one side of getset-expiry showed.
type expirySide struct {
	strategy string
	ttl      time.Duration // the sale's TTL
	a, b     string        // buyer-1's and buyer-2's answers
	// aHeld: buyer-1 was still stalled inside its section when buyer-2 was
	// sent.
	aHeld bool
	// aEnter, bEnter: when buyer-1 and buyer-2 entered their sections, the
	// lock theirs (the timeline, by the shops' real clock, both on one
	// machine); zero when the timeline lacks the section.
	aEnter, bEnter time.Time
	view           shopapi.SaleView
}

func (s expirySide) String() string {
	after := "-"
	if !s.aEnter.IsZero() && !s.bEnter.IsZero() {
		after = fmt.Sprintf("%d ms", s.bEnter.Sub(s.aEnter).Milliseconds())
	}
	return fmt.Sprintf("%s (ttl %d ms), buyer-2's clock 5 s ahead: buyer-2 sent while buyer-1 held: %v, buyer-2 %s, "+
		"entered %s after buyer-1 by the real clock; buyer-1 %s; %s", s.strategy, s.ttl.Milliseconds(), s.aHeld, s.b, after, s.a, lessons.Describe(s.view))
}

// getsetExpiryHolds is the lesson's verdict. redis-getset: buyer-2, sent
// while buyer-1 was stalled inside, bought, and entered its section after
// buyer-1 and less than the TTL after it by the real clock: it took over a
// lock still within its TTL, which only its clock running ahead explains
// (after the TTL it would be a plain expiry, a slow machine's); buyer-1's
// stale write was then lost (violations >= 1, lost_updates >= 1). redis:
// buyer-2, sent while buyer-1 held, waited for it: both bought, violations
// 0, lost_updates 0. why names the first condition that failed.
func getsetExpiryHolds(getset, server expirySide) (ok bool, why string) {
	switch {
	case !getset.aHeld:
		return false, getset.strategy + ": buyer-2 was sent after buyer-1 stopped holding"
	case getset.b != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-2 answered %s", getset.strategy, getset.b)
	case getset.aEnter.IsZero() || getset.bEnter.IsZero():
		return false, getset.strategy + ": buyer-1's or buyer-2's section is not in the timeline"
	case !getset.bEnter.After(getset.aEnter):
		return false, getset.strategy + ": buyer-2 entered not after buyer-1"
	case getset.bEnter.Sub(getset.aEnter) >= getset.ttl:
		return false, fmt.Sprintf("%s: buyer-2 entered %d ms after buyer-1, past its TTL by the real clock: an expiry, not the skew",
			getset.strategy, getset.bEnter.Sub(getset.aEnter).Milliseconds())
	case getset.view.Violations < 1 || getset.view.LostUpdates < 1:
		return false, getset.strategy + ": no overlap or no stale write lost"
	case !server.aHeld:
		return false, server.strategy + ": buyer-2 was sent after buyer-1 stopped holding"
	case server.a != shopapi.KindOrder || server.b != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-1 %s, buyer-2 %s, want two orders", server.strategy, server.a, server.b)
	case server.view.Violations != 0 || server.view.LostUpdates != 0:
		return false, server.strategy + " let buyer-2 in beside buyer-1 or lost an update"
	}
	return true, ""
}

// trailSection is the part of a timeline section getset-expiry reads.
type trailSection struct {
	Replica string  `json:"replica"`
	EnterAt float64 `json:"enter_at"` // ms since the epoch
}

// lastEnters is when the last section of replica r1 and that of r2
// entered (zero where a replica has none): buyer-1's and buyer-2's, the
// warm-ups having entered before them.
func lastEnters(sections []trailSection, r1, r2 string) (a, b time.Time) {
	var am, bm float64
	for _, s := range sections {
		switch {
		case s.Replica == r1 && s.EnterAt > am:
			am = s.EnterAt
		case s.Replica == r2 && s.EnterAt > bm:
			bm = s.EnterAt
		}
	}
	at := func(ms float64) time.Time {
		if ms == 0 {
			return time.Time{}
		}
		return time.UnixMicro(int64(ms*1000 + 0.5))
	}
	return at(am), at(bm)
}

// enters reads sale id's sections (written by the time the sale is
// settled) from the first target: when buyer-1, on the first replica, and
// buyer-2, on the last, entered.
func (sc *scenarioRun) enters(ctx context.Context, id uint64) (a, b time.Time, err error) {
	url := fmt.Sprintf("%s/api/sales/%d/timeline?to=%d", sc.Targets[0], id, time.Now().Add(time.Minute).UnixMilli())
	var tl struct {
		Sections []trailSection `json:"sections"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &tl); err != nil {
		return a, b, err
	}
	a, b = lastEnters(tl.Sections, sc.ReplicaName(ctx, sc.Targets[0]), sc.ReplicaName(ctx, sc.Last()))
	return a, b, nil
}

// getsetExpiry: the SETNX + GETSET lock, whose value is an expiry
// written by the client's own clock. The second replica's clock runs 5 s
// ahead (clock_skew); A on the first holds redis-getset (TTL 3 s) and
// stalls 2 s inside its section, well within its TTL by the real clock. B on
// the second reads A's expiry as past by its own clock, takes the lock over
// with GETSET and buys while A holds it (B enters less than the TTL after A,
// by the real clock: the skew's takeover, not an expiry); A wakes and writes
// its stale stock: a lost update. The same with redis, whose TTL the server
// keeps: B waits for A. (The loser's GETSET overwriting the winner's expiry
// and the GET-then-DEL release are lessons of their own: getset_races.go.)
func getsetExpiry(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	const ttl = 3 * time.Second
	var sides []expirySide
	for _, strategy := range []string{"redis-getset", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario getset-expiry",
			Strategy: strategy, Stock: 10, TTLMS: int(ttl.Milliseconds())})
		if err != nil {
			return "", false, err
		}
		if err := sc.Warm(ctx, v.ID, sc.Targets[0], sc.Last()); err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, sc.Last(), map[string]any{"kind": faultkind.ClockSkew, "ms": 5000}); err != nil {
			return "", false, err
		}
		s := expirySide{strategy: strategy, ttl: ttl}
		if s.b, s.aHeld, s.a, err = sc.HoldAndFault(ctx, v.ID, 2*time.Second); err != nil {
			return "", false, err
		}
		if s.view, err = sc.Settled(ctx, v.ID); err != nil {
			return "", false, err
		}
		if s.aEnter, s.bEnter, err = sc.enters(ctx, v.ID); err != nil {
			return "", false, err
		}
		sides = append(sides, s)
	}
	ok, why := getsetExpiryHolds(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}
