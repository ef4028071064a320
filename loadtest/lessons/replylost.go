package lessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// acquireReplyLost: a lock acquire retried after its reply was lost. The first replica's next lock script
// on the sale runs on Redis but its reply is lost (drop_reply): the lock is
// taken, and the buyer does not know. Our redisson model gives up on the error: A
// fails, and its orphaned lock keeps B waiting until the TTL (3 s). redis
// asks Redis again whether the lock is its own before anything else
// (requeue: its id holds it), so A buys, and B after it.
func acquireReplyLost(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"redisson", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario acquire-reply-lost",
			Strategy: strategy, Stock: 10, TTLMS: 3000})
		if err != nil {
			return "", false, err
		}
		if err := sc.warm(ctx, v.ID, sc.Targets[0], sc.last()); err != nil {
			return "", false, err
		}
		if err := sc.fault(ctx, sc.Targets[0], map[string]any{"kind": "drop_reply", "sale_id": v.ID}); err != nil {
			return "", false, err
		}
		a := sc.C.Order(ctx, shopapi.OrdersURL(sc.Targets[0], v.ID), "buyer-1")
		start := time.Now()
		b := sc.C.Order(ctx, shopapi.OrdersURL(sc.last(), v.ID), "buyer-2")
		bTook := time.Since(start)
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		if strategy == "redis" {
			pass = pass && a == shopapi.KindOrder && b == shopapi.KindOrder
		} else {
			pass = pass && a != shopapi.KindOrder && b == shopapi.KindOrder
		}
		pass = pass && got.Oversold == 0 && got.LostUpdates == 0 && got.Violations == 0
		parts = append(parts, fmt.Sprintf("%s, buyer-1's acquire reply lost: buyer-1 %s; buyer-2 %s after %d ms; %s",
			strategy, a, b, bTook.Milliseconds(), describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}
