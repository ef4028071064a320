package lessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// HoldAndFault makes buyer A on the first target hold a lock of sale id for
// hold (pause_holder after its Lost() check), injects each fault on the
// first target while A holds it, then sends buyer B to the last target. It
// returns B's answer, whether A was still holding when B was sent, and A's
// answer. B is sent again while its replica answers that the backend is
// down or unreachable (the replica's client reconnecting to a new master),
// or that its lock wait ran out while A still holds: such an answer placed
// no order.
func (sc *ScenarioRun) HoldAndFault(ctx context.Context, id uint64, hold time.Duration, faults ...map[string]any) (b string, aHeld bool, aKind string, err error) {
	o, err := sc.HoldAndFaultSeen(ctx, id, hold, faults...)
	return o.B, o.AHeld, o.AKind, err
}

// HeldOutcome is what holdAndFaultSeen saw: B's answer, whether A still
// held when B was sent and when B had its answer, and A's answer.
type HeldOutcome struct {
	B, AKind              string
	AHeld, AHeldAtBAnswer bool
}

// HoldAndFaultSeen is holdAndFault, also saying whether A was still
// holding when B got its answer.
func (sc *ScenarioRun) HoldAndFaultSeen(ctx context.Context, id uint64, hold time.Duration, faults ...map[string]any) (HeldOutcome, error) {
	var o HeldOutcome
	t1 := sc.Targets[0]
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": hold.Milliseconds()}); err != nil {
		return o, err
	}
	a := sc.OrderAsync(ctx, t1, id, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil {
		return o, err
	}
	for _, f := range faults {
		if err := sc.Fault(ctx, t1, f); err != nil {
			return o, err
		}
	}
	n, err := sc.PausedHolders(ctx, t1)
	if err != nil {
		return o, err
	}
	o.AHeld = n > 0
	var b string
	deadline := time.Now().Add(30 * time.Second)
	for {
		b = sc.C.Order(ctx, shopapi.OrdersURL(sc.Last(), id), "buyer-2")
		// B waiting out its lock wait while A still holds is B waiting for
		// A: it asks again. (A make test once took longer than the shops'
		// 7 s lock wait to restart a RedLock master and let A finish its 6 s
		// hold, and B answered lock_timeout before A released.)
		waitsForA := b == "lock_timeout" && len(a) == 0
		if (b != "backend_down" && b != shopapi.KindTransport && !waitsForA) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return o, err
		}
	}
	o.B = b
	// A's answer not in yet: A was still inside (paused, or writing) when
	// B had its answer.
	o.AHeldAtBAnswer = len(a) == 0
	o.AKind = <-a
	return o, nil
}

// OverlapWhileHeld runs a case whose pitfall is B served while A holds,
// the fault having taken A's lock away: it creates the sale req, warms it,
// and holds A while faults run. A restart on a loaded machine can take
// longer than the hold, and B is then served only after A's release: the
// world refused the case, the lock did not hold it. The case then runs
// once more on a new sale with twice the hold (still inside the cases'
// 15 s TTL, so that no expiry can stand in for the fault); tries says how
// many runs it took.
func (sc *ScenarioRun) OverlapWhileHeld(ctx context.Context, req shopapi.SaleRequest, hold time.Duration, faults ...map[string]any) (o HeldOutcome, got shopapi.SaleView, tries int, err error) {
	for tries = 1; ; tries++ {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], req)
		if err != nil {
			return o, got, tries, err
		}
		if err := sc.Warm(ctx, v.ID, sc.Targets[0], sc.Last()); err != nil {
			return o, got, tries, err
		}
		if o, err = sc.HoldAndFaultSeen(ctx, v.ID, hold, faults...); err != nil {
			return o, got, tries, err
		}
		if got, err = sc.Settled(ctx, v.ID); err != nil {
			return o, got, tries, err
		}
		if got.Violations > 0 || o.AHeldAtBAnswer || tries == 2 {
			return o, got, tries, nil
		}
		hold *= 2
	}
}

// TriesNote says, when a case ran more than once, why.
func TriesNote(tries int) string {
	if tries == 1 {
		return ""
	}
	return fmt.Sprintf(" (try %d: buyer-2 was served only after buyer-1's hold ended before, so the hold was doubled)", tries)
}
