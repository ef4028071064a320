package matrix_test

import (
	"slices"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/matrix"
)

func rows(t *testing.T) map[string]matrix.Row {
	t.Helper()
	out := map[string]matrix.Row{}
	for _, r := range matrix.Rows(lockstrategy.All()) {
		if _, dup := out[r.Name]; dup {
			t.Fatalf("two rows named %s", r.Name)
		}
		out[r.Name] = r
	}
	return out
}

// The cells the lessons already show, each with the lesson that shows it:
// the model must say the same.
func TestPredictionsAgreeWithTheLessons(t *testing.T) {
	byName := rows(t)
	for _, tc := range []struct {
		row   string
		fault faultkind.Name
		want  string
		shown string // the lesson (or the fault's own description) that shows it
	}{
		{"redis+no-watchdog", faultkind.PauseHolder, matrix.Broken, "pause_holder's description: only fencing survives it"},
		{"redis+fencing+no-watchdog", faultkind.PauseHolder, "", "no such row: fencing and the watchdog switch are separate rows"},
		{"redis", faultkind.PauseHolder, matrix.Holds, "pause_holder needs the watchdog off: a live process renews"},
		{"db-pessimistic", faultkind.PauseHolder, matrix.Holds, "the row lock lasts as long as the connection"},
		{"db-lock-table+fencing", faultkind.PauseHolder, matrix.OverlappedSafe, "db-lock-crashed-holder: slow holder, fencing=true"},
		{"db-lock-table", faultkind.PauseHolder, matrix.Broken, "db-lock-crashed-holder: slow holder, fencing=false"},
		{"db-optimistic", faultkind.PauseHolder, matrix.NA, "no lock"},
		{"mutex", faultkind.PauseHolder, matrix.Broken, "mutex-across-replicas"},
		{"redis", faultkind.StopProcess, matrix.Broken, "pause-past-ttl, fencing=false"},
		{"redis+fencing", faultkind.StopProcess, matrix.OverlappedSafe, "pause-past-ttl, fencing=true"},
		{"etcd+fencing", faultkind.StopProcess, matrix.OverlappedSafe, "etcd-lease-expiry, fencing=true"},
		{"redis", faultkind.RestartRedis, matrix.Broken, "redis-restart"},
		{"redlock", faultkind.RestartRedis, matrix.Holds, "redlock-minority: 1 of 3 masters restarted"},
		{"etcd", faultkind.RestartRedis, matrix.NA, "etcd keeps nothing on Redis"},
		{"zookeeper+fencing", faultkind.ExpireZKSession, matrix.OverlappedSafe, "zk-session-expiry: buyer-1 fenced"},
		{"zookeeper", faultkind.KillZKServer, matrix.Holds, "zk-ensemble-server-killed"},
		{"zookeeper", faultkind.SlowWork, matrix.Holds, "the session heart-beats on its own while a section works"},
		{"redis-setnx-expire", faultkind.CrashAfterSetNX, matrix.Stuck, "setnx-expire-crash"},
		{"redis", faultkind.CrashAfterSetNX, matrix.Unavailable, "setnx-expire-crash: redis frees it at the TTL"},
		{"redis-sentinel", faultkind.KillRedisMaster, matrix.Broken, "sentinel-failover, fencing=false"},
		{"redis-sentinel+fencing", faultkind.KillRedisMaster, matrix.OverlappedSafe, "sentinel-failover, fencing=true"},
		{"consistent-hash", faultkind.StaleRing, matrix.Broken, "consistent-hashing-ring-change, fencing off"},
		{"consistent-hash+fencing", faultkind.StaleRing, matrix.OverlappedSafe, "consistent-hashing-ring-change, fencing on"},
		{"db-lock-table", faultkind.CutDB, matrix.Unavailable, "db-lock-single-point"},
		{"db-pessimistic", faultkind.CutDB, matrix.Unavailable, "db-lock-single-point"},
		{"redis-lua-stock/async", faultkind.CutDB, matrix.Holds, "the queue takes orders while the database is away"},
		{"redis-lua-stock", faultkind.KillConsumer, matrix.NA, "no consumer without the queue"},
		{"redis-lua-stock/async", faultkind.KillConsumer, matrix.Holds, "queue-durability: reclaimed"},
		{"redis", faultkind.FreezeRedis, matrix.Unavailable, "redis-single-point: 0 sold inside the freeze"},
		{"redisson", faultkind.DropReply, matrix.Unavailable, "acquire-reply-lost: buyer-2 after the TTL"},
		{"redis-getset", faultkind.GetSetReleaseGap, matrix.Broken, "getset-release-race"},
		{"redisson", faultkind.NestedLock, matrix.Holds, "reentrancy: redisson counts the hold"},
		{"redis", faultkind.NestedLock, matrix.Unavailable, "reentrancy: nested_lock_timeout"},
	} {
		r, ok := byName[tc.row]
		if tc.want == "" {
			if ok {
				t.Errorf("row %s exists: %s", tc.row, tc.shown)
			}
			continue
		}
		if !ok {
			t.Errorf("no row %s", tc.row)
			continue
		}
		if got := matrix.Predict(r, tc.fault); got.Kind != tc.want {
			t.Errorf("%s × %s: predicted %s (%s), want %s (%s)", tc.row, tc.fault, got.Kind, got.WhyEn, tc.want, tc.shown)
		}
	}
}

// Every cell of the whole matrix has a prediction among the cell words,
// with its reason in both languages; every fault has a rule; the lab's
// safe configurations are never predicted broken by a fault unless it is
// one of the known ways past them (an unfenced stale holder).
func TestEveryCellIsPredictedAndSaysWhy(t *testing.T) {
	all := matrix.Rows(lockstrategy.All())
	if len(all) < len(lockstrategy.All()) {
		t.Fatalf("%d rows for %d strategies", len(all), len(lockstrategy.All()))
	}
	for _, f := range faultkind.All {
		touched := 0
		for _, r := range all {
			p := matrix.Predict(r, f)
			if !slices.Contains(matrix.Kinds, p.Kind) || p.Kind == matrix.Skip {
				t.Errorf("%s × %s: predicted %q", r.Name, f, p.Kind)
			}
			if p.WhyEn == "" || p.WhyZh == "" {
				t.Errorf("%s × %s: %s without its reason in both languages (%q, %q)", r.Name, f, p.Kind, p.WhyEn, p.WhyZh)
			}
			if p.WhyEn == "the lab has no rule for this fault yet" {
				t.Errorf("fault %s has no rule", f)
			}
			if p.Kind != matrix.NA {
				touched++
			}
			if p.Kind == matrix.Broken && r.Fencing && r.Strategy.Tokens {
				t.Errorf("%s × %s: a fenced row predicted broken: %s", r.Name, f, p.WhyEn)
			}
		}
		if touched == 0 {
			t.Errorf("fault %s touches no row", f)
		}
	}
}

// The rows: each strategy once by default, fenced only with tokens,
// without the watchdog only where it renews, queued only with its stock
// in Redis.
func TestRowsFollowTheStrategiesProperties(t *testing.T) {
	for _, r := range matrix.Rows(lockstrategy.All()) {
		s := r.Strategy
		switch {
		case r.Fencing && !s.Tokens:
			t.Errorf("%s: fenced without tokens", r.Name)
		case r.NoWatchdog && !s.Renews:
			t.Errorf("%s: watchdog off on a lease that never renews", r.Name)
		case r.Async && !s.Queues:
			t.Errorf("%s: queued without its stock in Redis", r.Name)
		case r.Combine && s.Kind() != lockstrategy.KindLock:
			t.Errorf("%s: combined without a lock", r.Name)
		}
	}
	byName := rows(t)
	for _, s := range lockstrategy.All() {
		if _, ok := byName[s.Name]; !ok {
			t.Errorf("no default row for %s", s.Name)
		}
	}
}
