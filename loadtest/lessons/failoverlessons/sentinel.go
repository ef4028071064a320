package failoverlessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// holdDuringFailover is how long buyer A holds the redis-sentinel lock while
// its master is killed and the replica promoted (down 3 s, a failover a few
// seconds more on a loaded machine), with A still holding when B is sent.
const holdDuringFailover = 10 * time.Second

// sentinelFailover: a lock on a master whose replica is fed asynchronously
// is lost in a failover. A takes the redis-sentinel lock on the master while replication
// is held back (hold_replication: certain rather than lucky); the master is
// killed and the Sentinels promote the replica, which never saw A's key;
// B gets the same lock while A still holds it: two holders, and A's late
// write is a lost update. The same with fencing: B's token (the new master's
// clock in µs) is above A's, and A's write is refused. Then redlock, whose
// masters are independent, under one of its three restarted: B waits.
func sentinelFailover(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, fencing := range []bool{false, true} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario sentinel-failover",
			Strategy: "redis-sentinel", Stock: 10, TTLMS: 15000, Fencing: fencing})
		if err != nil {
			return "", false, err
		}
		if err := sc.Warm(ctx, v.ID, sc.Targets[0], sc.Last()); err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, sc.Targets[0], map[string]any{"kind": faultkind.HoldReplication, "ms": 20000}); err != nil {
			return "", false, err
		}
		b, aHeld, aKind, err := sc.HoldAndFault(ctx, v.ID, holdDuringFailover,
			map[string]any{"kind": faultkind.KillRedisMaster, "ms": 3000})
		if err != nil {
			return "", false, err
		}
		got, err := sc.Settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		if fencing {
			pass = pass && b == shopapi.KindOrder && aHeld && aKind == "fenced" && got.FencedWrites == 1 && got.LostUpdates == 0 && got.Oversold == 0
		} else {
			pass = pass && b == shopapi.KindOrder && aHeld && got.Violations >= 1 && got.LostUpdates >= 1
		}
		parts = append(parts, fmt.Sprintf("redis-sentinel, fencing=%v, master killed before replicating: buyer-2 sent while buyer-1 held: %v, buyer-2 %s; buyer-1 %s; %s",
			fencing, aHeld, b, aKind, lessons.Describe(got)))
	}
	v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario sentinel-failover", Strategy: "redlock", Stock: 10, TTLMS: 15000})
	if err != nil {
		return "", false, err
	}
	if err := sc.Warm(ctx, v.ID, sc.Targets[0], sc.Last()); err != nil {
		return "", false, err
	}
	b, aHeld, aKind, err := sc.HoldAndFault(ctx, v.ID, holdDuringRestart, map[string]any{"kind": faultkind.RestartRedis, "node": "redlock-1"})
	if err != nil {
		return "", false, err
	}
	got, err := sc.Settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	pass = pass && b == shopapi.KindOrder && aHeld && aKind == shopapi.KindOrder && got.Violations == 0 && got.LostUpdates == 0 && got.Oversold == 0
	parts = append(parts, fmt.Sprintf("redlock, 1 of 3 independent masters restarted: buyer-2 sent while buyer-1 held: %v, buyer-2 %s; buyer-1 %s; %s",
		aHeld, b, aKind, lessons.Describe(got)))
	return strings.Join(parts, " | "), pass, nil
}
