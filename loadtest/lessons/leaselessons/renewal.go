package leaselessons

import (
	"context"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// renewalFails: what a holder must do when its lock's renewal keeps
// failing. buyer-1 on the first replica holds redis (TTL 1.5 s, watchdog
// on) in a long business step (slow_work, before its lock check); Redis
// answers nothing for 3 s (freeze_redis), so no renewal gets through and
// the lease is declared lost (lease event lost, Lost() closed). The lock
// can only signal: the order flow's check before the write is what stops
// buyer-1 (lock_lost, nothing written), while buyer-2 on the second
// replica, once Redis is back, takes the expired lock and buys.
func renewalFails(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	p, err := sc.renewalPolicy(ctx, "renewal-fails", "redis")
	if err != nil {
		return "", false, err
	}
	ok, why := renewalFailsHolds(p)
	out := p.String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// renewalPolicy runs renewal-fails' setup on strategy for lesson, waiting at each step
// for what it needs to see: buyer-1 inside its step, its lease's loss in the
// lease events, buyer-2 inside beside it.
func (sc *scenarioRun) renewalPolicy(ctx context.Context, lesson, strategy string) (policySide, error) {
	p := policySide{strategy: strategy}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario " + lesson, Strategy: strategy,
		Stock: 10, TTLMS: int(renewalTTL.Milliseconds())})
	if err != nil {
		return p, err
	}
	if err := sc.Warm(ctx, v.ID, t1, sc.Last()); err != nil {
		return p, err
	}
	replica := sc.ReplicaName(ctx, t1)
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.SlowWork, "ms": renewalStep.Milliseconds()}); err != nil {
		return p, err
	}
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its step
		return p, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.FreezeRedis, "node": "redis", "ms": renewalFreeze.Milliseconds()}); err != nil {
		return p, err
	}
	if p.loss, err = sc.LossTrail(ctx, t1, v.ID, replica, lessons.LostSeen); err != nil {
		return p, err
	}
	if !p.loss.Lost { // the mechanism did not happen: no point sending buyer-2
		p.a = <-a
		p.view, err = sc.Settled(ctx, v.ID)
		return p, err
	}
	b, early, together, err := sc.EnterBeside(ctx, sc.Last(), t1, v.ID, "buyer-2", lessons.BesideStep)
	if err != nil {
		return p, err
	}
	p.together, p.b = together, early
	if b != nil {
		p.b = <-b
	}
	p.a = <-a
	if p.view, err = sc.Settled(ctx, v.ID); err != nil {
		return p, err
	}
	// went_on, if any, was recorded before buyer-1 answered: once
	// written, it is in the trail.
	p.loss, err = sc.LossTrail(ctx, t1, v.ID, replica, func(t lessons.LossTrail) bool { return t.WentOn || p.a != shopapi.KindOrder })
	return p, err
}
