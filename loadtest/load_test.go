package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// countAtLeast is how many recorded latencies are at least d.
func countAtLeast(rec *load.Recorder, d time.Duration) int64 {
	hist, _ := rec.Snapshot()
	var n int64
	for _, b := range hist.Distribution() {
		if b.From >= d.Microseconds() {
			n += b.Count
		}
	}
	return n
}

// TestOpenModelCountsQueueing is coordinated omission, shown: at 100
// requests/s with one request in flight, request 5 stalls 200 ms. The
// requests due during the stall are sent late, and their latency must run
// from when they were DUE: request 5+k is sent at least 200 ms after 5 was
// due but was due 10k ms after it, so it waits at least 200-10k ms. That is
// a lower bound by construction, however slow the machine.
func TestOpenModelCountsQueueing(t *testing.T) {
	const stall = 200 * time.Millisecond
	var once sync.Once
	do := func(ctx context.Context, i int) shopapi.Answer {
		if i == 5 {
			once.Do(func() { time.Sleep(stall) })
		}
		return shopapi.Answer{Kind: shopapi.KindOrder}
	}
	rec := load.NewRecorder()
	load.Drive(context.Background(), load.Plan{Requests: 30, Workers: 1, Rate: 100}, do, rec)
	// Request 5 itself and requests 6..14 (each due at most 90 ms after 5)
	// waited at least 110 ms; 100 ms leaves room for histogram buckets.
	if n := countAtLeast(rec, 100*time.Millisecond); n < 10 {
		t.Errorf("%d requests took >= 100 ms, want >= 10: the requests queued behind the stall must include its wait", n)
	}
	if _, kinds := rec.Snapshot(); kinds[shopapi.KindOrder] != 30 {
		t.Errorf("recorded %v, want 30 orders", kinds)
	}

	// The same stall in the closed model is seen by the stalled request only:
	// the ones behind it are timed from their (late) actual send. Only the
	// stalled one is certain to be slow, so only it is asserted.
	rec = load.NewRecorder()
	once = sync.Once{}
	load.Drive(context.Background(), load.Plan{Requests: 30, Workers: 1}, do, rec)
	if n := countAtLeast(rec, stall-10*time.Millisecond); n < 1 {
		t.Errorf("closed model: the stalled request was not recorded as slow")
	}
}

// TestEnginesSendEachRequestOnce: every index is sent exactly once in both
// models, and --duration bounds the open model by due time.
func TestEnginesSendEachRequestOnce(t *testing.T) {
	for _, p := range []load.Plan{
		{Requests: 200, Workers: 7},
		{Requests: 200, Workers: 7, Rate: 5000},
	} {
		var mu sync.Mutex
		seen := map[int]int{}
		do := func(ctx context.Context, i int) shopapi.Answer {
			mu.Lock()
			seen[i]++
			mu.Unlock()
			return shopapi.Answer{Kind: shopapi.KindSoldOut}
		}
		rec := load.NewRecorder()
		load.Drive(context.Background(), p, do, rec)
		if len(seen) != p.Requests || rec.Done.Load() != int64(p.Requests) {
			t.Errorf("%+v: %d distinct indexes, %d recorded; want %d", p, len(seen), rec.Done.Load(), p.Requests)
		}
		for i, n := range seen {
			if n != 1 || i < 0 || i >= p.Requests {
				t.Errorf("%+v: index %d sent %d times", p, i, n)
			}
		}
	}

	// 1000 requests/s for 50 ms: exactly the 50 requests due before 50 ms.
	rec := load.NewRecorder()
	p := load.Plan{Requests: 1000, Workers: 4, Rate: 1000, Duration: 50 * time.Millisecond}
	load.Drive(context.Background(), p, func(context.Context, int) shopapi.Answer { return shopapi.Answer{Kind: shopapi.KindOrder} }, rec)
	if got := rec.Done.Load(); got != 50 || expectedRequests(p) != 50 {
		t.Errorf("sent %d (expected %d), want 50", got, expectedRequests(p))
	}
}

// TestDriveStopsOnCancel: a canceled run stops claiming requests, and the
// ones in flight still finish with a real answer (not a canceled ctx).
func TestDriveStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	sent := 0
	do := func(rctx context.Context, i int) shopapi.Answer {
		mu.Lock()
		sent++
		if sent == 10 {
			cancel()
		}
		mu.Unlock()
		if rctx.Err() != nil {
			return shopapi.Answer{Kind: shopapi.KindTransport}
		}
		return shopapi.Answer{Kind: shopapi.KindOrder}
	}
	rec := load.NewRecorder()
	load.Drive(ctx, load.Plan{Requests: 1000, Workers: 2}, do, rec)
	_, kinds := rec.Snapshot()
	if rec.Done.Load() > 12 || kinds[shopapi.KindTransport] != 0 {
		t.Errorf("after cancel: %d requests recorded (%v); want at most 12 and none canceled", rec.Done.Load(), kinds)
	}
}
