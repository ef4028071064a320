package contentionlessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// reentrancy: an order takes its own lock again (nested_lock, 1.5 s at
// most), as code that calls a locked method from a locked method does. On
// redis, not reentrant, the nested Lock waits for the lock its own order
// holds until its bound: the order fails (nested_lock_timeout) having
// written nothing, and the lock is freed with the outer holding. On
// redisson, a hash of holder -> hold count, the same order takes it again
// at once, buys, and frees it on its last unlock: the next buyer is served.
func reentrancy(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	return nestedLock(ctx, sc, "redis", "redisson")
}

// nestedLock runs the nested lock on plain (not reentrant: buyer-1 fails
// with nested_lock_timeout, buyer-2 buys, sold 1) and on counted
// (reentrant: both buy, sold 2), and nothing oversold or overlapped.
func nestedLock(ctx context.Context, sc *scenarioRun, plain, counted string) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{plain, counted} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario nested lock", Strategy: strategy, Stock: 10})
		if err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, sc.Targets[0], map[string]any{"kind": faultkind.NestedLock, "ms": 1500}); err != nil {
			return "", false, err
		}
		start := time.Now()
		a := sc.C.Order(ctx, shopapi.OrdersURL(sc.Targets[0], v.ID), "buyer-1")
		took := time.Since(start)
		b := sc.C.Order(ctx, shopapi.OrdersURL(sc.Last(), v.ID), "buyer-2")
		got, err := sc.Settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		if strategy == plain {
			pass = pass && a == "nested_lock_timeout" && b == shopapi.KindOrder && got.Sold == 1
		} else {
			pass = pass && a == shopapi.KindOrder && b == shopapi.KindOrder && got.Sold == 2
		}
		pass = pass && got.Oversold == 0 && got.Violations == 0
		parts = append(parts, fmt.Sprintf("%s: nested lock: buyer-1 %s after %d ms; then buyer-2 %s; %s",
			strategy, a, took.Milliseconds(), b, lessons.Describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}
