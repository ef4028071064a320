package redislock

// The contention harness and the peers `redis` is measured against
// (redsync with its defaults, a pub/sub-broadcast lock; both in locktest)
// are checked here on short runs. The benchmark itself, over every strategy
// and the peers, with the 64-contender ratios printed after the run, is
// BenchmarkContention in package lockstrategy:
//
//	SECKILL_BENCH_WINDOW=5s go test -run '^$' -bench 'Contention/.*/(redis|redsync-defaults|pubsub-broadcast)$' \
//	    -benchtime 1x ./internal/lockstrategy/
//
// The peers block a connection per waiting contender: the client needs a
// PoolSize above the contenders (testenv: 256).

import (
	"io"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisnaive"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func benchLockers(rdb *redis.Client) []locktest.Named {
	return append([]locktest.Named{{Name: "redis", Locker: New(rdb, lockstrategy.Options{})}}, locktest.Peers(rdb)...)
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
	lockers := append(benchLockers(rdb), locktest.Named{Name: "no-owner", Locker: redisnaive.NewNoOwner(rdb, time.Millisecond)})
	defer closeLockers(lockers)
	for _, nl := range lockers {
		work := time.Duration(0)
		if nl.Name == "no-owner" {
			work = 3 * time.Millisecond // outlives its 1 ms TTL
		}
		r := locktest.RunContention(nl.Locker, locktest.RedisKey(t, rdb), 4, work, 300*time.Millisecond)
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
