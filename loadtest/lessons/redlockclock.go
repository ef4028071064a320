package lessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The setting of redlock-clock-jump: buyer-1's lock lives jumpTTL, and it
// stalls jumpStall inside its section (slow_work, before its lock check),
// well within its validity as its own clock counts it.
const (
	jumpTTL   = 8 * time.Second
	jumpStall = 4 * time.Second
	// acquireSamples: uncontended orders whose lock wait is redsync's time
	// to take the lock on the three masters.
	acquireSamples = 40
)

// clockJumpSide is what one side (watchdog off, then on) showed.
type clockJumpSide struct {
	watchdog bool
	a, b     string // buyer-1's and buyer-2's answers
	view     shopapi.SaleView
}

func (s clockJumpSide) String() string {
	return fmt.Sprintf("redlock, watchdog %v: buyer-1 %s, buyer-2 %s; %s", s.watchdog, s.a, s.b, describe(s.view))
}

// redlockClockJumpHolds is the lesson's verdict: on both sides buyer-2 got
// the lock while buyer-1 held it (two holders, an overlap); without the
// watchdog buyer-1, trusting the validity its own clock counted, wrote: a
// lost update; with it, the failed renewal (no quorum kept buyer-1's value)
// stopped buyer-1 before its write. why names the first failed condition.
func redlockClockJumpHolds(unsafe, fix clockJumpSide) (ok bool, why string) {
	for _, s := range []clockJumpSide{unsafe, fix} {
		if s.b != shopapi.KindOrder || s.view.Violations < 1 {
			return false, fmt.Sprintf("watchdog %v: buyer-2 (%s) did not hold the lock beside buyer-1", s.watchdog, s.b)
		}
	}
	switch {
	case unsafe.watchdog || !fix.watchdog:
		return false, "the sides are not watchdog off, then on"
	case unsafe.a != shopapi.KindOrder || unsafe.view.LostUpdates < 1:
		return false, "without the watchdog buyer-1 wrote no stale stock (" + unsafe.a + ")"
	case fix.a != "lock_lost":
		return false, "with the watchdog buyer-1 was not stopped (" + fix.a + ")"
	case fix.view.LostUpdates != 0 || fix.view.Oversold != 0:
		return false, "with the watchdog an update was lost"
	}
	return true, ""
}

// redlockClockJump: first redsync's time to take a lock on the three
// masters here (acquireSamples uncontended orders, their lock wait); then,
// watchdog off and on: buyer-1 holds a redlock (TTL 8 s) and stalls 4 s
// inside its section; redlock-3 restarts without persistence (buyer-1
// keeps 2 of 3, as in redlock-minority) and redlock-2's clock jumps forward
// (clock_jump_redis: its key expires now): buyer-2 on the other replica
// takes masters 2 and 3, a quorum, while buyer-1 still holds by its count.
func redlockClockJump(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
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

// clockJumpSide runs one side of redlock-clock-jump.
func (sc *ScenarioRun) clockJumpSide(ctx context.Context, watchdog bool) (clockJumpSide, error) {
	s := clockJumpSide{watchdog: watchdog}
	t1 := sc.Targets[0]
	w := watchdog
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario redlock-clock-jump", Strategy: "redlock", Stock: 10,
		TTLMS: int(jumpTTL.Milliseconds()), Watchdog: &w})
	if err != nil {
		return s, err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return s, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "slow_work", "ms": jumpStall.Milliseconds()}); err != nil {
		return s, err
	}
	a := sc.orderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.waitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its slow step
		return s, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "restart_redis", "node": "redlock-3"}); err != nil {
		return s, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "clock_jump_redis", "node": "redlock-2", "ms": 1}); err != nil {
		return s, err
	}
	s.b = sc.C.Order(ctx, shopapi.OrdersURL(sc.last(), v.ID), "buyer-2")
	s.a = <-a
	s.view, err = sc.settled(ctx, v.ID)
	return s, err
}

// redlockAcquireTime is the p50 and p99 lock wait, in ms, of acquireSamples
// orders placed one after the other on a fresh redlock sale: with nobody
// else on the lock, the wait is the time redsync takes to get it (a SET NX
// PX on each master, answered by a quorum).
func (sc *ScenarioRun) redlockAcquireTime(ctx context.Context) (p50, p99 float64, err error) {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario redlock-clock-jump: time to acquire",
		Strategy: "redlock", Stock: acquireSamples})
	if err != nil {
		return 0, 0, err
	}
	sc.note(v.ID)
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
