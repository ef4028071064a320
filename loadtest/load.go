package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histogram bounds, in microseconds: 1 µs to 10 min at 3 significant
// digits (0.1% error), well past any --timeout.
const (
	histMinUS   = 1
	histMaxUS   = int64(10 * time.Minute / time.Microsecond)
	histSigFigs = 3
)

// plan is the shape of one load phase.
type plan struct {
	requests int           // order attempts to make (one per buyer)
	workers  int           // closed model: the concurrency; open model: the most requests in flight
	rate     float64       // requests per second; 0 means the closed model
	duration time.Duration // stop issuing new requests after this; 0: no limit
}

// open reports whether p is the open model.
func (p plan) open() bool { return p.rate > 0 }

// attempt sends request i (0-based) and returns its outcome kind.
type attempt func(ctx context.Context, i int) string

// recorder collects the outcome and latency of every request. One mutex
// around one histogram: the lock is held for a few dozen nanoseconds per
// request, far below a request's cost, and one histogram per worker would
// take hundreds of KB each at 3 significant digits.
type recorder struct {
	mu    sync.Mutex
	hist  *hdrhistogram.Histogram // microseconds
	kinds map[string]int64
	// done and orders are read live by the progress display.
	done   atomic.Int64
	orders atomic.Int64
}

func newRecorder() *recorder {
	return &recorder{hist: hdrhistogram.New(histMinUS, histMaxUS, histSigFigs), kinds: map[string]int64{}}
}

// record counts one finished request.
func (r *recorder) record(latency time.Duration, kind string) {
	us := max(latency.Microseconds(), histMinUS)
	us = min(us, histMaxUS) // RecordValue refuses values out of range; clamp instead of losing the request
	r.mu.Lock()
	_ = r.hist.RecordValue(us)
	r.kinds[kind]++
	r.mu.Unlock()
	r.done.Add(1)
	if kind == kindOrder {
		r.orders.Add(1)
	}
}

// snapshot returns a copy of the histogram and the counts by kind.
func (r *recorder) snapshot() (*hdrhistogram.Histogram, map[string]int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kinds := make(map[string]int64, len(r.kinds))
	for k, n := range r.kinds {
		kinds[k] = n
	}
	return hdrhistogram.Import(r.hist.Export()), kinds
}

// drive runs the load phase of p, calling do once per request, and returns
// the wall time from the start to the last answer. Canceling ctx stops new
// requests; those in flight finish (their own timeout bounds them) so that
// every request sent is counted with its real outcome.
func drive(ctx context.Context, p plan, do attempt, rec *recorder) time.Duration {
	reqCtx := context.WithoutCancel(ctx)
	var next atomic.Int64 // the next request index to claim
	start := time.Now()
	worker := closedWorker
	if p.open() {
		worker = openWorker
	}
	var wg sync.WaitGroup
	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(ctx, reqCtx, p, start, &next, do, rec)
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// closedWorker is one of the closed model's workers: send, wait for the
// answer, send the next. Latency runs from the actual send, so a slow answer
// delays the requests behind it without showing in their latency: the
// coordinated omission the output warns about.
func closedWorker(ctx, reqCtx context.Context, p plan, start time.Time, next *atomic.Int64, do attempt, rec *recorder) {
	for ctx.Err() == nil {
		if p.duration > 0 && time.Since(start) >= p.duration {
			return
		}
		i := int(next.Add(1) - 1)
		if i >= p.requests {
			return
		}
		sent := time.Now()
		kind := do(reqCtx, i)
		rec.record(time.Since(sent), kind)
	}
}

// openWorker is one of the open model's senders. Request i is due at
// start + i/rate whatever happened before it; latency runs from that
// intended time, so when every sender is busy (the target stalls), the time
// a request waited for a sender is part of its latency. That is the
// correction for coordinated omission: a stall costs every request it
// delays, not only the one that met it.
func openWorker(ctx, reqCtx context.Context, p plan, start time.Time, next *atomic.Int64, do attempt, rec *recorder) {
	for ctx.Err() == nil {
		i := int(next.Add(1) - 1)
		if i >= p.requests {
			return
		}
		offset := time.Duration(float64(i) * float64(time.Second) / p.rate)
		if p.duration > 0 && offset >= p.duration {
			return
		}
		intended := start.Add(offset)
		if !sleepUntil(ctx, intended) {
			return
		}
		kind := do(reqCtx, i)
		rec.record(time.Since(intended), kind)
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
