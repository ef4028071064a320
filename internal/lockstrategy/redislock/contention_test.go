package redislock

// A contention harness that knows nothing about Redis: any lockstrategy.Locker
// can be measured with runContention (the lead may move this file to a shared
// package as is). Contenders loop lock -> work -> unlock on one hot key for a
// fixed window; the result has the completed critical sections per second,
// the lock wait distribution (HDR histogram, µs), how often a later arrival
// was served before an earlier one, and the spread of acquisitions across
// contenders.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// contentionResult is one measured case.
type contentionResult struct {
	strategy   string
	contenders int
	work       time.Duration

	ops     int64         // completed critical sections
	elapsed time.Duration // from start until every contender stopped
	// wait is the lock wait in µs: from the first Lock call of an
	// acquisition (retries after a give-up included) until it returned. Waits
	// still pending when the window closed are recorded with the time waited
	// so far: leaving them out would hide exactly the starving waiters.
	wait *hdrhistogram.Histogram
	// overtakes counts acquisitions made while an earlier arrival was still
	// waiting (arrival = the first Lock call, as the clients saw it).
	overtakes int64
	giveUps   int64 // Lock returned ErrNotAcquired (its own bound) and was retried
	errs      int64 // other Lock/Unlock errors
	overlaps  int64 // two contenders inside at once: the lock is broken
	perWorker []int64
}

func (r contentionResult) perSecond() float64 { return float64(r.ops) / r.elapsed.Seconds() }

// overtakePct is the share of acquisitions that overtook an earlier arrival.
func (r contentionResult) overtakePct() float64 {
	if r.ops == 0 {
		return 0
	}
	return 100 * float64(r.overtakes) / float64(r.ops)
}

// spread is "min-max" acquisitions per contender.
func (r contentionResult) spread() string {
	lo, hi := r.perWorker[0], r.perWorker[0]
	for _, n := range r.perWorker {
		lo, hi = min(lo, n), max(hi, n)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// arrivals numbers Lock calls in the order they start and tells, at each
// acquisition, whether an earlier one is still waiting.
type arrivals struct {
	mu      sync.Mutex
	next    uint64
	pending map[uint64]struct{}
}

func (a *arrivals) arrive() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	a.pending[a.next] = struct{}{}
	return a.next
}

// served removes seq and reports whether an earlier arrival is still pending.
func (a *arrivals) served(seq uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.pending, seq)
	for p := range a.pending {
		if p < seq {
			return true
		}
	}
	return false
}

func (a *arrivals) abandon(seq uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.pending, seq)
}

// runContention runs contenders goroutines over key for window, each holding
// the lock for work (a sleep: the critical section waits on I/O, as the
// order's DB transaction does).
func runContention(l lockstrategy.Locker, key string, contenders int, work, window time.Duration) contentionResult {
	r := contentionResult{
		contenders: contenders, work: work,
		wait:      hdrhistogram.New(1, (10 * time.Minute).Microseconds(), 3),
		perWorker: make([]int64, contenders),
	}
	arr := &arrivals{pending: map[uint64]struct{}{}}
	var (
		histMu sync.Mutex
		inside atomic.Int32
		ops    atomic.Int64
		wg     sync.WaitGroup
	)
	record := func(d time.Duration) {
		histMu.Lock()
		_ = r.wait.RecordValue(max(d.Microseconds(), 1))
		histMu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	start := time.Now()
	for w := range contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				seq, arrived := arr.arrive(), time.Now()
				le, err := l.Lock(ctx, key)
				for err != nil && ctx.Err() == nil {
					if errors.Is(err, lockstrategy.ErrNotAcquired) {
						atomic.AddInt64(&r.giveUps, 1)
					} else {
						atomic.AddInt64(&r.errs, 1)
						time.Sleep(time.Millisecond)
					}
					le, err = l.Lock(ctx, key)
				}
				if err != nil { // the window closed while waiting
					record(time.Since(arrived))
					arr.abandon(seq)
					return
				}
				record(time.Since(arrived))
				if arr.served(seq) {
					atomic.AddInt64(&r.overtakes, 1)
				}
				if inside.Add(1) != 1 {
					atomic.AddInt64(&r.overlaps, 1)
				}
				if work > 0 {
					time.Sleep(work)
				}
				inside.Add(-1)
				uctx, ucancel := context.WithTimeout(context.Background(), 5*time.Second)
				if err := le.Unlock(uctx); err != nil {
					atomic.AddInt64(&r.errs, 1)
				}
				ucancel()
				ops.Add(1)
				r.perWorker[w]++
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.ops = ops.Load()
	return r
}
