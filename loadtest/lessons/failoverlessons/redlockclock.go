package failoverlessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The setting of redlock-clock-jump: buyer-1's lock lives jumpTTL, and it
// stalls jumpStall inside its section (slow_work, before its lock check),
// within its validity as its own clock counts it. The stall spans two of
// the watchdog's renewals (every jumpTTL/3): faults done within the first
// period leave the second after them, and before buyer-1's check.
const (
	jumpTTL   = 8 * time.Second
	jumpStall = 6500 * time.Millisecond
	// acquireSamples: uncontended orders whose lock wait is redsync's time
	// to take the lock on the three masters.
	acquireSamples = 40
)

// clockJumpSide is what one side (watchdog off, then on) showed.
type clockJumpSide struct {
	watchdog bool
	a, b     string // buyer-1's and buyer-2's answers
	// keysCut is clock_jump_redis's answer: the keys whose expiry it cut
	// on redlock-2 (buyer-1's lock is the one held there then).
	keysCut int
	// faults is how long the restart and the jump took, from buyer-1 seen
	// inside its section to the jump's answer.
	faults time.Duration
	// together: buyer-2 was inside its section while buyer-1 was still in
	// its stall (both held the lock, both had read the stock).
	together bool
	// lost: buyer-1's replica recorded its lease lost (lease event lost:
	// a renewal that reached no quorum; redlock records it only so).
	lost bool
	view shopapi.SaleView
}

func (s clockJumpSide) String() string {
	renewal := "" // without the watchdog no renewal runs: nothing to read
	if s.watchdog {
		renewal = fmt.Sprintf("; buyer-1's renewal failed (lease event lost): %v", s.lost)
	}
	return fmt.Sprintf("redlock, watchdog %v: restart and jump %.1f s after buyer-1 was inside, keys_cut %d on redlock-2; "+
		"buyer-2 inside beside buyer-1: %v%s; buyer-1 %s, buyer-2 %s; %s",
		s.watchdog, s.faults.Seconds(), s.keysCut, s.together, renewal, s.a, s.b, lessons.Describe(s.view))
}

// redlockClockJumpHolds is the lesson's verdict: on both sides the jump cut
// a key on redlock-2 and buyer-2 got the lock and was seen inside while
// buyer-1 was still in its section (two holders, an overlap); without the
// watchdog buyer-1, trusting the validity its own clock counted, wrote: a
// lost update; with it, a renewal was seen to fail (no quorum kept
// buyer-1's value: lease event lost) and buyer-1 was stopped before its
// write. why names the first failed condition.
func redlockClockJumpHolds(unsafe, fix clockJumpSide) (ok bool, why string) {
	if unsafe.watchdog || !fix.watchdog {
		return false, "the sides are not watchdog off, then on"
	}
	for _, s := range []clockJumpSide{unsafe, fix} {
		switch {
		case s.keysCut == 0:
			return false, fmt.Sprintf("watchdog %v: the jump cut no key on redlock-2 (keys_cut 0)", s.watchdog)
		case s.b != shopapi.KindOrder || s.view.Violations < 1:
			return false, fmt.Sprintf("watchdog %v: buyer-2 (%s) did not hold the lock beside buyer-1", s.watchdog, s.b)
		case !s.together:
			return false, fmt.Sprintf("watchdog %v: buyer-2 was not inside while buyer-1 was still in its section", s.watchdog)
		}
	}
	switch {
	case unsafe.a != shopapi.KindOrder || unsafe.view.LostUpdates < 1:
		return false, "without the watchdog buyer-1 wrote no stale stock (" + unsafe.a + ")"
	case !fix.lost:
		return false, "with the watchdog no failed renewal was observed (no lease event lost)"
	case fix.a != "lock_lost":
		return false, "with the watchdog buyer-1 was not stopped (" + fix.a + ")"
	case fix.view.LostUpdates != 0 || fix.view.Oversold != 0:
		return false, "with the watchdog an update was lost"
	}
	return true, ""
}

// redlockClockJump: first redsync's time to take a lock on the three
// masters here (acquireSamples uncontended orders, their lock wait); then,
// watchdog off and on: buyer-1 holds a redlock (TTL 8 s) and stalls 6.5 s
// inside its section; redlock-3 restarts without persistence (buyer-1
// keeps 2 of 3, as in redlock-minority) and clock_jump_redis simulates on
// redlock-2 what a forward jump of its clock does to its keys (their expiry
// cut to 1 ms; no clock changes): buyer-2 on the other replica takes
// masters 2 and 3, a quorum, while buyer-1 still holds by its count.
func redlockClockJump(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	p50, p99, err := sc.redlockAcquireTime(ctx)
	if err != nil {
		return "", false, err
	}
	var sides []clockJumpSide
	for _, watchdog := range []bool{false, true} {
		s, err := sc.clockJumpSide(ctx, watchdog)
		if err != nil {
			return "", false, err
		}
		sides = append(sides, s)
	}
	ok, why := redlockClockJumpHolds(sides[0], sides[1])
	out := fmt.Sprintf("redsync takes a lock on 3 masters in p50 %.2f ms, p99 %.2f ms here (%d uncontended orders) | %s | %s",
		p50, p99, acquireSamples, sides[0], sides[1])
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// clockJumpSide runs one side of redlock-clock-jump, waiting at each step
// for what it needs to see: buyer-1 inside its section, redlock-3 back
// empty, a key cut on redlock-2, buyer-2 inside beside buyer-1.
func (sc *scenarioRun) clockJumpSide(ctx context.Context, watchdog bool) (clockJumpSide, error) {
	s := clockJumpSide{watchdog: watchdog}
	t1 := sc.Targets[0]
	w := watchdog
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario redlock-clock-jump", Strategy: "redlock", Stock: 10,
		TTLMS: int(jumpTTL.Milliseconds()), Watchdog: &w})
	if err != nil {
		return s, err
	}
	if err := sc.Warm(ctx, v.ID, t1, sc.Last()); err != nil {
		return s, err
	}
	replica := sc.ReplicaName(ctx, t1)
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.SlowWork, "ms": jumpStall.Milliseconds()}); err != nil {
		return s, err
	}
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its stall
		return s, err
	}
	inside := time.Now()
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.RestartRedis, "node": "redlock-3"}); err != nil {
		return s, err
	}
	res, err := sc.FaultResult(ctx, t1, map[string]any{"kind": faultkind.ClockJumpRedis, "node": "redlock-2", "ms": 1})
	if err != nil {
		return s, err
	}
	s.faults = time.Since(inside)
	if s.keysCut, err = lessons.ResultInt(res, "keys_cut"); err != nil {
		return s, err
	}
	if s.keysCut > 0 {
		b, early, together, err := sc.EnterBeside(ctx, sc.Last(), t1, v.ID, "buyer-2", lessons.BesideStep)
		if err != nil {
			return s, err
		}
		s.together, s.b = together, early
		if b != nil {
			s.b = <-b
		}
	}
	s.a = <-a
	if s.view, err = sc.Settled(ctx, v.ID); err != nil {
		return s, err
	}
	if watchdog { // lost is recorded before buyer-1's check could see it
		t, err := sc.LossTrail(ctx, t1, v.ID, replica, func(t lessons.LossTrail) bool { return t.Lost || s.a == shopapi.KindOrder })
		if err != nil {
			return s, err
		}
		s.lost = t.Lost
	}
	return s, nil
}

// redlockAcquireTime is the p50 and p99 lock wait, in ms, of acquireSamples
// orders placed one after the other on a fresh redlock sale: with nobody
// else on the lock, the wait is the time redsync takes to get it (a SET NX
// PX on each master, answered by a quorum).
func (sc *scenarioRun) redlockAcquireTime(ctx context.Context) (p50, p99 float64, err error) {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario redlock-clock-jump: time to acquire",
		Strategy: "redlock", Stock: acquireSamples})
	if err != nil {
		return 0, 0, err
	}
	sc.Note(v.ID)
	for i := range acquireSamples {
		if k := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), fmt.Sprintf("acquire%d", i)); k != shopapi.KindOrder {
			return 0, 0, fmt.Errorf("uncontended redlock order %d: %s", i, k)
		}
	}
	url := t1 + "/api/sales/" + strconv.FormatUint(v.ID, 10) + "/live"
	for deadline := time.Now().Add(10 * time.Second); ; {
		var l struct {
			Requests int64 `json:"requests"`
			LockWait struct {
				P50 float64 `json:"p50"`
				P99 float64 `json:"p99"`
			} `json:"lock_wait_ms"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l); err != nil {
			return 0, 0, err
		}
		if l.Requests >= acquireSamples {
			return l.LockWait.P50, l.LockWait.P99, nil
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("GET %s: %d requests published after 10 s, want %d", url, l.Requests, acquireSamples)
		}
		if err := load.Sleep(ctx, 250*time.Millisecond); err != nil {
			return 0, 0, err
		}
	}
}
