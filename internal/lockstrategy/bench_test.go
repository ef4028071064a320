package lockstrategy_test

// BenchmarkContention: every registered strategy that is a real lock, plus
// two peers from outside the project (redsync with default options, a
// pub/sub-broadcast lock), on one hot key per case: 1, 16 and 64 contenders, critical section 0
// and 1 ms. Each case runs for locktest.Window() (SECKILL_BENCH_WINDOW,
// default 2 s), ignoring b.N, so run it with -benchtime 1x:
//
//	go test -run '^$' -bench BenchmarkContention -benchtime 1x ./internal/lockstrategy/
//
// After the run it prints one Markdown table and the 64-contender ratios of
// `redis` to redsync-defaults. (The seeds' claims need repeated runs:
// BenchmarkClaims judges them.) `none` shows overlaps there by design; an
// overlap in a strategy marked Safe, or in a peer, fails the benchmark.

import (
	"context"
	"fmt"
	"os"
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

// benchLocker is one row source: a strategy or a peer.
type benchLocker struct {
	locktest.Named
	mustExclude bool // an overlap is a failure, not a finding
}

func BenchmarkContention(b *testing.B) {
	be := testenv.Backends(b, "lockstrategy")
	window := locktest.Window()
	// One prefix per run: keys, rows and fence counters of earlier runs (or
	// of the conformance suite) can never meet this run's contenders.
	prefix := fmt.Sprintf("bench:%d:", time.Now().UnixNano())
	lockers := benchLockers(b, be)
	var results []locktest.Result
	// Cleanups run last-in first-out: the table prints before the backends
	// that testenv registered earlier are closed.
	b.Cleanup(func() { removeBenchState(be, prefix) })
	b.Cleanup(func() {
		if len(results) == 0 {
			return
		}
		fmt.Printf("\nLock contention, one hot key, %v per case:\n\n", window)
		locktest.PrintTable(os.Stdout, results)
		fmt.Println()
		locktest.PrintRatios(os.Stdout, results, "redis", locktest.PeerRedsync, 64, benchWork)
	})
	// Strategies innermost: the runs that are compared are adjacent in time,
	// which matters on a shared, noisy machine.
	for _, c := range benchContenders {
		for _, work := range benchWork {
			for _, bl := range lockers {
				name := fmt.Sprintf("contenders=%d/work=%v/%s", c, work, bl.Name)
				b.Run(name, func(b *testing.B) {
					key := fmt.Sprintf("%s%s:c%d:w%v", prefix, bl.Name, c, work)
					r := locktest.RunContention(bl.Locker, key, c, work, window)
					r.Strategy = bl.Name
					results = append(results, r)
					locktest.Report(b, r)
					if r.Overlaps > 0 && bl.mustExclude {
						b.Errorf("%s: %d overlapping critical sections: the lock is broken", bl.Name, r.Overlaps)
					}
					if r.Ops == 0 {
						b.Errorf("%s: no critical section completed in %v (%d errors)", bl.Name, window, r.Errs)
					}
				})
			}
		}
	}
}

// benchLockers builds every registered strategy that is a lock (a LockFree
// or a Reserver takes none, as in the conformance suite)
// and appends the peers; all are closed at cleanup.
func benchLockers(b *testing.B, be lockstrategy.Backends) []benchLocker {
	b.Helper()
	var out []benchLocker
	for _, s := range lockstrategy.All() {
		if s.Kind() != lockstrategy.KindLock {
			continue
		}
		l, err := s.NewLocker(be, lockstrategy.Options{})
		if err != nil {
			b.Fatalf("%s: build: %v", s.Name, err)
		}
		b.Cleanup(func() { closeLocker(l) })
		out = append(out, benchLocker{locktest.Named{Name: s.Name, Locker: l}, s.Safe})
	}
	for _, p := range locktest.Peers(be.Redis) {
		b.Cleanup(func() { closeLocker(p.Locker) })
		out = append(out, benchLocker{p, true})
	}
	return out
}

// removeBenchState deletes what the run left behind: Redis keys (locks,
// fences, queues) on the single Redis and the RedLock masters, and the lock
// rows and fence counters in the database. Best effort: leftovers are
// harmless, they only take space. ZooKeeper lock parents are the zookeeper
// strategy's business.
func removeBenchState(be lockstrategy.Backends, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, rdb := range append([]*redis.Client{be.Redis}, be.Redlock...) {
		if keys, err := rdb.Keys(ctx, "*"+prefix+"*").Result(); err == nil && len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	}
	if be.DB == nil {
		return
	}
	db := be.DB.WithContext(ctx)
	db.Exec("DELETE FROM lock_rows WHERE name LIKE ?", prefix+"%")
	db.Exec("DELETE FROM lock_table WHERE lock_key LIKE ?", prefix+"%")
	db.Exec("DELETE FROM lock_fences WHERE lock_key LIKE ?", prefix+"%")
}
