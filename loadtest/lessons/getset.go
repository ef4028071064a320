package lessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// getsetExpiry: the SETNX + GETSET lock, whose value is an expiry
// written by the client's own clock. The second replica's clock runs 5 s
// ahead (clock_skew); A on the first holds redis-getset (TTL 3 s) and
// stalls 2 s inside its section, well within its TTL by the real clock. B on
// the second reads A's expiry as past by its own clock, takes the lock over
// with GETSET and buys while A holds it; A wakes and writes its stale
// stock: a lost update. The same with redis, whose TTL the server keeps: B
// waits for A. (The loser's GETSET overwriting the winner's expiry and the
// GET-then-DEL release are lessons of their own: scenarios_getset_races.go.)
func getsetExpiry(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"redis-getset", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario getset-expiry",
			Strategy: strategy, Stock: 10, TTLMS: 3000})
		if err != nil {
			return "", false, err
		}
		if err := sc.warm(ctx, v.ID, sc.Targets[0], sc.last()); err != nil {
			return "", false, err
		}
		if err := sc.fault(ctx, sc.last(), map[string]any{"kind": "clock_skew", "ms": 5000}); err != nil {
			return "", false, err
		}
		b, aHeld, aKind, err := sc.holdAndFault(ctx, v.ID, 2*time.Second)
		if err != nil {
			return "", false, err
		}
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		if strategy == "redis-getset" {
			pass = pass && b == shopapi.KindOrder && aHeld && got.Violations >= 1 && got.LostUpdates >= 1
		} else {
			pass = pass && b == shopapi.KindOrder && aHeld && aKind == shopapi.KindOrder && got.Violations == 0 && got.LostUpdates == 0
		}
		parts = append(parts, fmt.Sprintf("%s, buyer-2's clock 5 s ahead: buyer-2 sent while buyer-1 held: %v, buyer-2 %s; buyer-1 %s; %s",
			strategy, aHeld, b, aKind, describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}
