package lockstrategy_test

// BenchmarkClaims judges the seeds' claims with their noise: the locks the
// claims compare (redis, zookeeper, redlock, db-pessimistic, db-lock-table,
// and any registered strategy whose name says "poll"), 64 contenders on one
// hot key, critical section 0 and 1 ms, over SECKILL_CLAIMS_ROUNDS rounds
// (default 5) of locktest.Window() each; then the database's own
// transactions per second (UPDATE ... WHERE stock > 0 on one row) from 1
// connection and from 16, the same rounds. Strategies are innermost, so the
// figures compared are measured close in time. Run it with -benchtime 1x:
//
//	go test -run '^$' -bench BenchmarkClaims -benchtime 1x ./internal/lockstrategy/
//
// It prints the claims table: each verdict decides only when the compared
// ranges (min-max over the rounds) do not overlap.

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/claims"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// claimLocks are the strategies the claims compare (besides a polling one).
var claimLocks = []string{"redis", "zookeeper", "redlock", "db-pessimistic", "db-lock-table"}

// claimTPSConns are the connection counts of the database's TPS.
var claimTPSConns = []int{1, 16}

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
	var lockers []locktest.Named
	for _, s := range lockstrategy.All() {
		if s.Kind() != lockstrategy.KindLock || !slices.Contains(claimLocks, s.Name) && !strings.Contains(s.Name, "poll") {
			continue
		}
		l, err := s.NewLocker(be, lockstrategy.Options{})
		if err != nil {
			b.Fatalf("%s: build: %v", s.Name, err)
		}
		b.Cleanup(func() { closeLocker(l) })
		lockers = append(lockers, locktest.Named{Name: s.Name, Locker: l})
	}
	sqlDB, err := be.DB.DB()
	if err != nil {
		b.Fatal(err)
	}
	var results []locktest.Result
	tps := map[int][]float64{}
	for round := range rounds {
		for _, work := range benchWork {
			for _, l := range lockers {
				b.Run(fmt.Sprintf("round=%d/work=%v/%s", round+1, work, l.Name), func(b *testing.B) {
					r := locktest.RunContention(l.Locker, fmt.Sprintf("%s%s:w%v", prefix, l.Name, work), 64, work, window)
					r.Strategy = l.Name
					results = append(results, r)
					b.ReportMetric(r.PerSecond(), "sections/s")
					if r.Ops == 0 {
						b.Errorf("%s: no critical section completed in %v (%d errors)", l.Name, window, r.Errs)
					}
				})
			}
		}
		for _, conns := range claimTPSConns {
			b.Run(fmt.Sprintf("round=%d/database-tps/conns=%d", round+1, conns), func(b *testing.B) {
				v, err := locktest.RunDBTPS(sqlDB, conns, window)
				if err != nil {
					b.Fatal(err)
				}
				tps[conns] = append(tps[conns], v)
				b.ReportMetric(v, "tps")
			})
		}
	}
	tpsCond := claims.DBTPSConditions(locktest.DBFlushSettings(sqlDB), window, rounds)
	fmt.Println()
	locktest.PrintClaims(os.Stdout, results, 64, benchWork, tps, tpsCond)
}
