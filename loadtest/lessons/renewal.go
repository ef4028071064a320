package lessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// renewalFails: what a holder must do when its lock's renewal fails. A on
// the first replica holds redis (TTL 1.5 s, watchdog on) and is in a long
// business step (slow_work, 4 s, before its lock check); Redis restarts
// without persistence and the key is gone; the watchdog's next renewal
// finds the lock not A's and closes Lost(). The lock can only signal: the
// order flow's check before the write is what stops A (lock_lost, nothing
// written), while B on the second replica buys. The redis-restart lesson
// shows the same loss with a holder past its check: a lost update.
func renewalFails(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario renewal-fails", Strategy: "redis", Stock: 10, TTLMS: 1500})
	if err != nil {
		return "", false, err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return "", false, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "slow_work", "ms": 4000}); err != nil {
		return "", false, err
	}
	a := sc.orderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.waitPaused(ctx, t1); err != nil { // A holds the lock, in its slow step
		return "", false, err
	}
	if err := sc.fault(ctx, t1, map[string]any{"kind": "restart_redis", "node": "redis"}); err != nil {
		return "", false, err
	}
	var b string
	deadline := time.Now().Add(15 * time.Second)
	for {
		b = sc.C.Order(ctx, shopapi.OrdersURL(sc.last(), v.ID), "buyer-2")
		if (b != "backend_down" && b != shopapi.KindTransport) || time.Now().After(deadline) {
			break
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return "", false, err
		}
	}
	aKind := <-a
	got, err := sc.settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	pass := aKind == "lock_lost" && b == shopapi.KindOrder && got.LostUpdates == 0 && got.Oversold == 0
	return fmt.Sprintf("redis restarted under buyer-1's slow work: buyer-1 %s, buyer-2 %s; %s", aKind, b, describe(got)), pass, nil
}
