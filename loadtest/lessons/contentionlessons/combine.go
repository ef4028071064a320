package contentionlessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// lockPerBatch: one lock per order against one lock per batch, on the same
// herd. 100 units, 400 buyers (64 at a time, spread over the replicas)
// fire at the opening of a fenced redis sale, without combining and then
// with it. Without, every order takes the lock and a transaction of its
// own: at least as many acquisitions as orders. With it, the buyers
// waiting on one replica are sold by one acquisition and one transaction:
// fewer acquisitions than orders. Both must sell exactly what the
// database counts. The time to sell out and the buyers' p99 are shown,
// not judged (the client's clock describes, the database decides).
func lockPerBatch(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, combine := range []bool{false, true} {
		guards := map[string]any{"fencing": true}
		if combine {
			guards["combine"] = true
		}
		id, opens, err := sc.herdSale(ctx, "scenario lock-per-batch", 100, guards)
		if err != nil {
			return "", false, err
		}
		all := sc.herd(ctx, id, opens, herdSpec{buyers: 400, clicks: 1, workers: 64, prefix: "b"})
		t, err := sc.truth(ctx, id, answered(all))
		if err != nil {
			return "", false, err
		}
		var lastOrder time.Time
		var waits []time.Duration
		for _, a := range all {
			if a.status == 201 && a.done.After(lastOrder) {
				lastOrder = a.done
			}
			if a.status != 0 {
				waits = append(waits, a.done.Sub(a.sent))
			}
		}
		sold := t.view.Sold
		perHold := 0.0
		if t.sections > 0 {
			perHold = float64(sold) / float64(t.sections)
		}
		if combine {
			pass = pass && t.exact() && t.view.FencedWrites == 0 && t.sections < sold
		} else {
			pass = pass && t.exact() && t.view.FencedWrites == 0 && t.sections >= sold
		}
		parts = append(parts, fmt.Sprintf("combine %v: sold out %.2f s after the opening; %d lock acquisitions and %d transactions "+
			"for %d orders (%.1f units per hold); buyers' p99 %.0f ms; %s",
			combine, lastOrder.Sub(opens).Seconds(), t.sections, t.sections, sold, perHold, p99ms(waits), lessons.Describe(t.view)))
	}
	return strings.Join(parts, " | "), pass, nil
}
