package lessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// twoLevelHandoff: the two-level lock's local hand-off (one lock per replica in front of Redis) on a real sale. The same
// contended load (16 buyers over the targets, 6 orders each, 1 ms of work,
// fencing on) on redis and on redis-2level: both must sell exactly what
// the database counts (no oversell, no lost update, no overlap, no fenced write: the
// tokens stay monotonic across hand-offs). How many orders per second each
// served is shown, not judged: on a shared machine the HTTP path dominates;
// the lock's own gain is BenchmarkContentionProcesses's figure.
func twoLevelHandoff(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"redis", "redis-2level"} {
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario two-level-handoff",
			Strategy: strategy, Stock: 96, WorkMS: 1, Fencing: true})
		if err != nil {
			return "", false, err
		}
		start := time.Now()
		sc.contend(ctx, v.ID, 16, 6)
		took := time.Since(start)
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		pass = pass && got.Sold > 0 && got.Stock == 96-got.Sold && got.Oversold == 0 && got.LostUpdates == 0 &&
			got.Violations == 0 && got.FencedWrites == 0
		parts = append(parts, fmt.Sprintf("%s: %.0f orders/s; %s", strategy, float64(got.Sold)/took.Seconds(), describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}
