package lockstrategy_test

// BenchmarkClaims judges the seeds' claims with their noise, over
// SECKILL_CLAIMS_ROUNDS rounds (default 5) of locktest.Window() per case:
//
//   - the locks the claims compare (redis, redisson, zookeeper,
//     db-pessimistic, db-lock-table and the polling variants,
//     claims.PollingLocks), 64 contenders on one hot key, critical section
//     0 and 1 ms: locked sections per second, and the Redis commands each
//     lock's client sent per acquisition (a hook on the client, so that
//     other clients of the same Redis do not count);
//   - the same client and wait (redsync, a retry every 5-20 ms, as the
//     redlock strategy's) on 1 RedLock master and on 3, uncontended and at
//     64 contenders, no work: acquisitions (lock and unlock) per second and
//     Redis commands per acquisition, so that RedLock's cost is three
//     masters against one and not a different wait;
//   - the database's own transactions per second (UPDATE ... WHERE stock >
//     0 on one row) from 1 connection and from 16.
//
// Cases are innermost in each round, so the figures compared are measured
// close in time. Run it with -benchtime 1x:
//
//	go test -run '^$' -bench BenchmarkClaims -benchtime 1x ./internal/lockstrategy/
//
// It prints the claims table: each verdict decides only when the compared
// ranges (min-max over the rounds) do not overlap. With SECKILL_CLAIMS_JSON
// set to a path it also writes the claims at work 0 there, as GET
// /api/claims answers them (the browser test's fixture,
// e2e/browser/fixtures/claims.json, is one).

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/claims"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redlock"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// claimLocks are the strategies the claims compare, the polling variants
// included.
var claimLocks = append([]string{"redis", "redisson", "zookeeper", "db-pessimistic", "db-lock-table"}, claims.PollingLocks...)

// claimTPSConns are the connection counts of the database's TPS.
var claimTPSConns = []int{1, 16}

// The redsync cases: contenders and masters.
var (
	redsyncContenders = []int{1, 64}
	redsyncMasters    = []int{1, 3}
)

// The redlock strategy's wait between tries (redlock.go: minRetryDelay,
// maxRetryDelay), which the redsync cases keep on one master and on three.
const (
	redsyncMinRetry = 5 * time.Millisecond
	redsyncMaxRetry = 20 * time.Millisecond
)

func claimRounds() int {
	if n, err := strconv.Atoi(os.Getenv("SECKILL_CLAIMS_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return 5
}

func BenchmarkClaims(b *testing.B) {
	be := testenv.Backends(b, "lockstrategy")
	window, rounds := locktest.Window(), claimRounds()
	prefix := fmt.Sprintf("claims:%d:", time.Now().UnixNano())
	b.Cleanup(func() { removeBenchState(be, prefix) })
	if len(be.Redlock) < 3 {
		b.Fatalf("redsync on 3 masters: %d RedLock masters configured", len(be.Redlock))
	}
	sqlDB, err := be.DB.DB()
	if err != nil {
		b.Fatal(err)
	}
	cb := &claimBench{window: window, prefix: prefix, sent: commandsSent(be), lockers: claimLockers(b, be),
		redsyncOn: map[int]*redsyncLocker{}, sqlDB: sqlDB,
		rate: map[claims.RedsyncCase][]float64{}, perAcq: map[claims.RedsyncCase][]float64{}, tps: map[int][]float64{}}
	for _, m := range redsyncMasters {
		cb.redsyncOn[m] = newRedsyncLocker(be.Redlock[:m])
	}
	for round := range rounds {
		cb.round(b, round)
	}
	tpsCond := claims.DBTPSConditions(locktest.DBFlushSettings(sqlDB), window, rounds)
	other := claims.Figures{
		Redsync: cb.rate, RedsyncCommands: cb.perAcq,
		RedsyncConditions: claims.RedsyncConditions(redsyncMinRetry, redsyncMaxRetry, window, rounds),
		DBTPS:             cb.tps, DBTPSConditions: tpsCond.En, DBTPSConditionsZh: tpsCond.Zh,
	}
	fmt.Println()
	locktest.PrintClaims(os.Stdout, cb.results, 64, benchWork, other)
	if path := os.Getenv("SECKILL_CLAIMS_JSON"); path != "" {
		writeClaimsJSON(b, path, locktest.Claims(cb.results, 64, 0, other), rounds)
	}
}

// commandsSent counts the commands every Redis client of be sends from
// now on (a case's are the difference of two counts).
func commandsSent(be lockstrategy.Backends) func() int64 {
	var counters []*locktest.CommandCounter
	for _, c := range append([]*goredislib.Client{be.Redis}, be.Redlock...) {
		n := &locktest.CommandCounter{}
		c.AddHook(n)
		counters = append(counters, n)
	}
	return func() (n int64) {
		for _, c := range counters {
			n += c.Count()
		}
		return n
	}
}

// claimLockers builds the locks the claims compare (claimLocks), closed
// when the benchmark ends.
func claimLockers(b *testing.B, be lockstrategy.Backends) []locktest.Named {
	var lockers []locktest.Named
	for _, s := range lockstrategy.All() {
		if s.Kind() != lockstrategy.KindLock || !slices.Contains(claimLocks, s.Name) {
			continue
		}
		l, err := s.NewLocker(be, lockstrategy.Options{})
		if err != nil {
			b.Fatalf("%s: build: %v", s.Name, err)
		}
		b.Cleanup(func() { closeLocker(l) })
		lockers = append(lockers, locktest.Named{Name: s.Name, Locker: l})
	}
	return lockers
}

// claimBench is what BenchmarkClaims measures with and what it gathers.
type claimBench struct {
	window    time.Duration
	prefix    string // of every key the cases lock
	sent      func() int64
	lockers   []locktest.Named
	redsyncOn map[int]*redsyncLocker // by its number of masters
	sqlDB     *sql.DB
	results   []locktest.Result
	rate      map[claims.RedsyncCase][]float64
	perAcq    map[claims.RedsyncCase][]float64
	tps       map[int][]float64 // by connections
}

// run is one case: its sections per second and the commands it sent.
func (cb *claimBench) run(b *testing.B, l lockstrategy.Locker, key string, contenders int, work time.Duration) locktest.Result {
	before := cb.sent()
	r := locktest.RunContention(l, key, contenders, work, cb.window)
	r.Commands = cb.sent() - before
	b.ReportMetric(r.PerSecond(), "sections/s")
	b.ReportMetric(r.CommandsPerOp(), "cmds/op")
	if r.Ops == 0 {
		b.Errorf("no critical section completed in %v (%d errors)", cb.window, r.Errs)
	}
	return r
}

// round measures every case once: each lock at each work, redsync at each
// number of contenders and masters, the database's TPS at each number of
// connections.
func (cb *claimBench) round(b *testing.B, round int) {
	for _, work := range benchWork {
		for _, l := range cb.lockers {
			b.Run(fmt.Sprintf("round=%d/work=%v/%s", round+1, work, l.Name), func(b *testing.B) {
				r := cb.run(b, l.Locker, fmt.Sprintf("%s%s:w%v", cb.prefix, l.Name, work), 64, work)
				r.Strategy = l.Name
				cb.results = append(cb.results, r)
			})
		}
	}
	for _, c := range redsyncContenders {
		for _, m := range redsyncMasters {
			b.Run(fmt.Sprintf("round=%d/redsync/contenders=%d/masters=%d", round+1, c, m), func(b *testing.B) {
				r := cb.run(b, cb.redsyncOn[m], fmt.Sprintf("%sredsync:c%d:m%d", cb.prefix, c, m), c, 0)
				k := claims.RedsyncCase{Masters: m, Contenders: c}
				cb.rate[k] = append(cb.rate[k], r.PerSecond())
				cb.perAcq[k] = append(cb.perAcq[k], r.CommandsPerOp())
			})
		}
	}
	for _, conns := range claimTPSConns {
		b.Run(fmt.Sprintf("round=%d/database-tps/conns=%d", round+1, conns), func(b *testing.B) {
			v, err := locktest.RunDBTPS(cb.sqlDB, conns, cb.window)
			if err != nil {
				b.Fatal(err)
			}
			cb.tps[conns] = append(cb.tps[conns], v)
			b.ReportMetric(v, "tps")
		})
	}
}

// writeClaimsJSON writes cs as GET /api/claims answers them, with make
// bench's conditions in both languages.
func writeClaimsJSON(b *testing.B, path string, cs []claims.Claim, rounds int) {
	cond := claims.Text{
		En: fmt.Sprintf("make bench (BenchmarkClaims), %d rounds, 64 contenders, work 0s", rounds),
		Zh: fmt.Sprintf("make bench（BenchmarkClaims），%d 轮，64 个竞争者，锁内业务耗时 0s", rounds),
	}
	out, err := json.MarshalIndent(map[string]any{"run_id": 0, "run_ids": []uint64{},
		"conditions": cond.En, "conditions_zh": cond.Zh, "claims": cs}, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(out, '\n'), 0o644)
	}
	if err != nil {
		b.Errorf("SECKILL_CLAIMS_JSON: %v", err)
	}
}

// redsyncLocker is the redlock strategy's client and wait on any number of
// masters: redsync with its expiry, drift and round timeout, one try per
// round, then a sleep of 5-20 ms, jittered, until ctx ends. The strategy
// itself refuses fewer than 3 masters; this is the same lock on 1.
type redsyncLocker struct {
	rs   *redsync.Redsync
	opts []redsync.Option
}

func newRedsyncLocker(masters []*goredislib.Client) *redsyncLocker {
	pools := make([]redsyncredis.Pool, len(masters))
	for i, c := range masters {
		pools[i] = goredis.NewPool(c)
	}
	ttl := redlock.DefaultTTL
	round := max(ttl/20, 50*time.Millisecond) // redlock.go: roundTimeout
	return &redsyncLocker{rs: redsync.New(pools...), opts: []redsync.Option{
		redsync.WithExpiry(ttl),
		redsync.WithDriftFactor(redlock.DriftFactor),
		redsync.WithTimeoutFactor(float64(round) / float64(ttl)),
		redsync.WithTries(1),
	}}
}

func (l *redsyncLocker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	for {
		m := l.rs.NewMutex(key, l.opts...)
		// As the strategy: the try is not cancelled half-way (a cancelled
		// one would leave partial keys until their TTL).
		if err := m.TryLockContext(context.WithoutCancel(ctx)); err == nil {
			return redsyncLease{m}, nil
		}
		if err := lockstrategy.Sleep(ctx, redsyncMinRetry+rand.N(redsyncMaxRetry-redsyncMinRetry)); err != nil {
			return nil, err
		}
	}
}

// redsyncLease is one holding: no fencing token, never told it is lost
// (no work runs long enough to outlive the TTL here).
type redsyncLease struct{ m *redsync.Mutex }

func (redsyncLease) Token() uint64         { return 0 }
func (redsyncLease) Lost() <-chan struct{} { return nil }

func (le redsyncLease) Unlock(ctx context.Context) error {
	if ok, err := le.m.UnlockContext(ctx); !ok {
		return fmt.Errorf("redsync: unlock: %w (%v)", lockstrategy.ErrNotHeld, err)
	}
	return nil
}
