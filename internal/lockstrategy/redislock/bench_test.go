package redislock

// Benchmarks: `redis` against redsync (defaults) and a pub/sub-broadcast lock
// (the peers and the harness live in locktest), one hot key, 1/16/64
// contenders, critical section 0 and 1 ms. Each case runs for the -benchtime
// window (a duration; "Nx" means locktest.Window()), ignoring b.N, and the
// table with the 64-contender ratios, per round and their median, is printed
// after the run:
//
//	go test -run '^$' -bench Contention -benchtime 5s -count 3 ./internal/lockstrategy/redislock/
//
// The same comparison over every strategy is BenchmarkContention in package
// lockstrategy. The peers block a connection per waiting contender: the
// client needs a PoolSize above the contenders (testenv: 256).

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

var (
	benchContenders = []int{1, 16, 64}
	benchWork       = []time.Duration{0, time.Millisecond}
)

func benchLockers(rdb *redis.Client) []locktest.Named {
	return append([]locktest.Named{{Name: "redis", Locker: New(rdb, lockstrategy.Options{})}}, locktest.Peers(rdb)...)
}

// results collects the cases of a run for the table TestMain prints.
var results struct {
	mu   sync.Mutex
	list []locktest.Result
}

func BenchmarkContention(b *testing.B) {
	rdb := testenv.Redis(b)
	window := benchWindow()
	lockers := benchLockers(rdb)
	defer closeLockers(lockers)
	// Strategies innermost: the runs that are compared are adjacent in time,
	// which matters on a shared, noisy machine.
	for _, c := range benchContenders {
		for _, work := range benchWork {
			for _, nl := range lockers {
				b.Run(fmt.Sprintf("contenders=%d/work=%v/%s", c, work, nl.Name), func(b *testing.B) {
					r := locktest.RunContention(nl.Locker, testKey(b, rdb), c, work, window)
					r.Strategy = nl.Name
					if r.Overlaps > 0 {
						b.Errorf("%d overlapping critical sections: the lock is broken", r.Overlaps)
					}
					results.mu.Lock()
					results.list = append(results.list, r)
					results.mu.Unlock()
					locktest.Report(b, r)
				})
			}
		}
	}
}

// benchWindow is -benchtime as a duration, locktest.Window() for the "Nx" form.
func benchWindow() time.Duration {
	if f := flag.Lookup("test.benchtime"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			return d
		}
	}
	return locktest.Window()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if len(results.list) > 0 {
		locktest.PrintTable(os.Stdout, results.list)
		locktest.PrintRatios(os.Stdout, results.list, "redis", locktest.PeerRedsync, 64, benchWork)
	}
	os.Exit(code)
}

func closeLockers(ls []locktest.Named) {
	for _, nl := range ls {
		if c, ok := nl.Locker.(io.Closer); ok {
			c.Close()
		}
	}
}

// The harness and both peers work (and a broken lock would be caught): a
// short run of each, so that `go test` keeps the benchmark code honest.
func TestContentionHarness(t *testing.T) {
	rdb := testenv.Redis(t)
	lockers := append(benchLockers(rdb), locktest.Named{Name: "no-owner", Locker: NewNoOwner(rdb, time.Millisecond)})
	defer closeLockers(lockers)
	for _, nl := range lockers {
		work := time.Duration(0)
		if nl.Name == "no-owner" {
			work = 3 * time.Millisecond // outlives its 1 ms TTL
		}
		r := locktest.RunContention(nl.Locker, testKey(t, rdb), 4, work, 300*time.Millisecond)
		t.Logf("%s: %d sections, %d overlaps, wait p99 %.2fms", nl.Name, r.Ops, r.Overlaps, r.WaitMs(99))
		if r.Ops == 0 || r.Errs > 0 && nl.Name != "no-owner" {
			t.Errorf("%s: %d sections, %d errors", nl.Name, r.Ops, r.Errs)
		}
		if broken := nl.Name == "no-owner"; broken != (r.Overlaps > 0) {
			t.Errorf("%s: %d overlaps; the harness must see overlaps exactly for the broken lock", nl.Name, r.Overlaps)
		}
	}
}

// The pub/sub peer copies `redis`'s TTL and fallback (locktest cannot import
// this package): only the wake-up scheme may differ between them.
func TestPubSubPeerMatchesRedisTimings(t *testing.T) {
	if locktest.PubSubTTL != DefaultTTL || locktest.PubSubFallback != PollInterval {
		t.Errorf("pub/sub peer TTL %v fallback %v; redis has %v and %v",
			locktest.PubSubTTL, locktest.PubSubFallback, DefaultTTL, PollInterval)
	}
}
