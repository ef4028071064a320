package orderqueue

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/reserved"
)

// The accepts of one sale that arrive on a replica together are gathered
// for at most acceptWait (or until acceptBatch wait) and run as one script
// call: one round trip to Redis for many buyers, each answered its own.
const (
	acceptBatch = 128
	acceptWait  = time.Millisecond
)

// pendingAccept is one buyer's accept waiting for its batch: its request,
// its ctx (whose deadline bounds the batch's call) and its new ticket.
type pendingAccept struct {
	ctx    context.Context
	r      Request
	ticket string
}

// acceptBatch runs one sale's accepts in one enqueueScript call, in the
// order they arrived. A call that failed (Redis down, a reply lost) fails
// every accept of the batch with its error: each buyer then hears that the
// accept may have run (order.acceptMayHaveRun), as it would alone.
func (q *Queue) acceptBatch(saleKey string, batch []pendingAccept) []gather.Result[Accepted] {
	ctx, cancel := batchContext(batch)
	defer cancel()
	first := batch[0].r
	k := keysOf(saleKey)
	args := make([]any, 0, 3+4*len(batch))
	args = append(args, reserved.ReloadSettle.Milliseconds()*4, first.SaleID, first.PerUserLimit)
	for _, p := range batch {
		idem := ""
		if p.r.IdempotencyKey != "" {
			idem = p.r.UserID + "\x00" + p.r.IdempotencyKey
		}
		args = append(args, p.ticket, p.r.UserID, idem, p.r.IdempotencyKey)
	}
	results := make([]gather.Result[Accepted], len(batch))
	v, err := enqueueScript.Run(ctx, q.rdb,
		[]string{k.Stock, k.Epoch, k.Reloading, k.InFlight, k.Buyers, k.Idem, k.Accepted, q.stream}, args...).Slice()
	if err == nil && len(v) != 3*len(batch) {
		err = fmt.Errorf("unexpected reply of %d values for %d accepts", len(v), len(batch))
	}
	if err != nil {
		for i := range results {
			results[i].Err = fmt.Errorf("orderqueue: enqueue: %w", err)
		}
		return results
	}
	for i, p := range batch {
		code, _ := v[3*i].(int64)
		got, _ := v[3*i+1].(string)
		at, _ := v[3*i+2].(string)
		a, err := answerOf(p.r, code, got, at)
		results[i] = gather.Result[Accepted]{Value: a, Err: err}
	}
	return results
}

// batchContext bounds a batch's call by the earliest deadline of its
// buyers' ctxs (none: unbounded but for the client's timeouts); a buyer
// who leaves does not cancel the others' accepts.
func batchContext(batch []pendingAccept) (context.Context, context.CancelFunc) {
	var earliest time.Time
	for _, p := range batch {
		if d, ok := p.ctx.Deadline(); ok && (earliest.IsZero() || d.Before(earliest)) {
			earliest = d
		}
	}
	if earliest.IsZero() {
		return context.WithCancel(context.Background())
	}
	return context.WithDeadline(context.Background(), earliest)
}
