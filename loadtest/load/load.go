package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Plan is the shape of one load phase.
type Plan struct {
	Requests int           // order attempts to make (one per buyer)
	Workers  int           // closed model: the concurrency; open model: the most requests in flight
	Rate     float64       // requests per second; 0 means the closed model (unless herd)
	Duration time.Duration // stop issuing new requests after this; 0: no limit
	// herd: every request is due at start, the sale's opening: the buyers
	// are all there when it opens and fire as fast as the workers are
	// answered (the open model at an unbounded rate).
	herd bool
	// Start is when the load begins (a herd's opening); zero: at once.
	// Workers sleep until then.
	Start time.Time
	// Warm, when set, is called once by each worker (0..workers-1) before it
	// waits for start: a herd's connections are made before the opening, so
	// that the first second measures the shop, not the dialing.
	Warm func(w int)
}

// Open reports whether p is the open model.
func (p Plan) Open() bool { return p.Rate > 0 || p.herd }

// Attempt sends request i (0-based) and returns its answer.
type Attempt func(ctx context.Context, i int) shopapi.Answer

// Drive runs the load phase of p, calling do once per request, and returns
// the wall time from the start (a herd's opening) to the last answer.
// Canceling ctx stops new requests; those in flight finish (their own
// timeout bounds them) so that every request sent is counted with its real
// outcome.
func Drive(ctx context.Context, p Plan, do Attempt, rec *Recorder) time.Duration {
	reqCtx := context.WithoutCancel(ctx)
	var next atomic.Int64 // the next request index to claim
	start := p.Start
	if start.IsZero() {
		start = time.Now()
	}
	worker := closedWorker
	if p.Open() {
		worker = openWorker
	}
	var wg sync.WaitGroup
	for w := range p.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.Warm != nil {
				p.Warm(w)
			}
			if !sleepUntil(ctx, start) {
				return
			}
			worker(ctx, reqCtx, p, w, start, &next, do, rec)
		}()
	}
	wg.Wait()
	return max(time.Since(start), 0)
}

// closedWorker is one of the closed model's workers: send, wait for the
// answer, send the next. Latency runs from the actual send, so a slow answer
// delays the requests behind it without showing in their latency: the
// coordinated omission the output warns about.
func closedWorker(ctx, reqCtx context.Context, p Plan, w int, start time.Time, next *atomic.Int64, do Attempt, rec *Recorder) {
	for ctx.Err() == nil {
		if p.Duration > 0 && time.Since(start) >= p.Duration {
			return
		}
		i := int(next.Add(1) - 1)
		if i >= p.Requests {
			return
		}
		sent := time.Now()
		a := do(reqCtx, i)
		answered := time.Now()
		rec.Record(w, a, answered.Sub(sent), sent, answered)
	}
}

// openWorker is one of the open model's senders. Request i is due at
// start + i/rate (at start, in a herd) whatever happened before it; latency
// runs from that intended time, so when every sender is busy (the target
// stalls), the time a request waited for a sender is part of its latency.
// That is the correction for coordinated omission: a stall costs every
// request it delays, not only the one that met it.
func openWorker(ctx, reqCtx context.Context, p Plan, w int, start time.Time, next *atomic.Int64, do Attempt, rec *Recorder) {
	for ctx.Err() == nil {
		i := int(next.Add(1) - 1)
		if i >= p.Requests {
			return
		}
		var offset time.Duration
		if !p.herd {
			offset = time.Duration(float64(i) * float64(time.Second) / p.Rate)
		}
		if p.Duration > 0 && (offset >= p.Duration || (p.herd && time.Since(start) >= p.Duration)) {
			return
		}
		intended := start.Add(offset)
		if !sleepUntil(ctx, intended) {
			return
		}
		sent := time.Now()
		a := do(reqCtx, i)
		answered := time.Now()
		rec.Record(w, a, answered.Sub(intended), sent, answered)
	}
}

// sleepUntil waits until t or until ctx is done; it reports whether t came.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
