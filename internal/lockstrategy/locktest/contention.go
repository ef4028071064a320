// Package locktest is benchmark and test support for lock strategies; it is
// not used by the shop. It measures any lockstrategy.Locker under contention
// on one hot key (RunContention), prints the results as a Markdown table, and
// provides the peers the `redis` strategy is measured against:
// redsync with its default options and a pub/sub-broadcast lock.
package locktest

// The harness knows nothing about the backends: contenders loop lock -> work
// -> unlock on one hot key for a fixed window; the result has the completed
// critical sections per second, the lock wait distribution (HDR histogram,
// µs), how often a later arrival was served before an earlier one, and the
// spread of acquisitions across contenders.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// EnvWindow names the environment variable that sets how long each
// benchmark case runs (a Go duration); DefaultWindow applies when it is unset.
const (
	EnvWindow     = "SECKILL_BENCH_WINDOW"
	DefaultWindow = 2 * time.Second
)

// Window returns the per-case window from EnvWindow, or DefaultWindow when it
// is unset or not a positive duration.
func Window() time.Duration {
	if d, err := time.ParseDuration(os.Getenv(EnvWindow)); err == nil && d > 0 {
		return d
	}
	return DefaultWindow
}

// Result is one measured case.
type Result struct {
	Strategy   string
	Contenders int
	Work       time.Duration // time spent inside each critical section

	Ops     int64         // completed critical sections
	Elapsed time.Duration // from start until every contender stopped
	// Wait is the lock wait in µs: from the first Lock call of an
	// acquisition (retries after a give-up included) until it returned. Waits
	// still pending when the window closed are recorded with the time waited
	// so far: leaving them out would hide exactly the starving waiters.
	Wait *hdrhistogram.Histogram
	// Overtakes counts acquisitions made while an earlier arrival was still
	// waiting (arrival = the first Lock call, as the clients saw it).
	Overtakes int64
	GiveUps   int64 // Lock returned ErrNotAcquired (its own bound) and was retried
	Errs      int64 // other Lock/Unlock errors
	Overlaps  int64 // two contenders inside at once: the lock did not exclude
	PerWorker []int64
	// Commands is the Redis commands the lock's client sent during the
	// case (a CommandCounter's count); 0: not counted.
	Commands int64
}

// PerSecond is the completed critical sections per second.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Ops) / r.Elapsed.Seconds()
}

// CommandsPerOp is the Redis commands sent per completed critical section
// (lock and unlock), or 0 when they were not counted.
func (r Result) CommandsPerOp() float64 {
	if r.Ops == 0 {
		return 0
	}
	return float64(r.Commands) / float64(r.Ops)
}

// WaitMs returns the wait at quantile q (0-100) in milliseconds.
func (r Result) WaitMs(q float64) float64 { return float64(r.Wait.ValueAtQuantile(q)) / 1000 }

// MaxWaitMs is the longest wait in milliseconds.
func (r Result) MaxWaitMs() float64 { return float64(r.Wait.Max()) / 1000 }

// OvertakePct is the share of acquisitions that overtook an earlier arrival.
func (r Result) OvertakePct() float64 {
	if r.Ops == 0 {
		return 0
	}
	return 100 * float64(r.Overtakes) / float64(r.Ops)
}

// Spread is "min-max" acquisitions per contender.
func (r Result) Spread() string {
	if len(r.PerWorker) == 0 {
		return "-"
	}
	lo, hi := r.PerWorker[0], r.PerWorker[0]
	for _, n := range r.PerWorker {
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

// RunContention runs contenders goroutines over key for window, each holding
// the lock for work (a sleep: the critical section waits on I/O, as the
// order's DB transaction does). Strategy is left for the caller to fill.
func RunContention(l lockstrategy.Locker, key string, contenders int, work, window time.Duration) Result {
	r := Result{
		Contenders: contenders, Work: work,
		Wait:      hdrhistogram.New(1, (10 * time.Minute).Microseconds(), 3),
		PerWorker: make([]int64, contenders),
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
		_ = r.Wait.RecordValue(max(d.Microseconds(), 1))
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
						atomic.AddInt64(&r.GiveUps, 1)
					} else {
						atomic.AddInt64(&r.Errs, 1)
						time.Sleep(time.Millisecond) // a failing backend must not spin
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
					atomic.AddInt64(&r.Overtakes, 1)
				}
				if inside.Add(1) != 1 {
					atomic.AddInt64(&r.Overlaps, 1)
				}
				if work > 0 {
					time.Sleep(work)
				}
				inside.Add(-1)
				// Unlock with a fresh bounded ctx: the window's may be done.
				uctx, ucancel := context.WithTimeout(context.Background(), 5*time.Second)
				if err := le.Unlock(uctx); err != nil {
					atomic.AddInt64(&r.Errs, 1)
				}
				ucancel()
				ops.Add(1)
				r.PerWorker[w]++ // one writer per index
			}
		}()
	}
	wg.Wait()
	r.Elapsed = time.Since(start)
	r.Ops = ops.Load()
	return r
}

// BenchLockUnlock measures uncontended lock+unlock round trips of l on key,
// one per b.Loop iteration, and reports their median and p99.
func BenchLockUnlock(b *testing.B, l lockstrategy.Locker, key string) {
	ctx := context.Background()
	took := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		le, err := l.Lock(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if err := le.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
