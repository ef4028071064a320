// Package faults injects the failures the seeds describe in words, on demand,
// into a running replica: a lock holder paused past its TTL (the GC-pause
// case), a ZooKeeper session expired from outside, a sale row held by a slow
// transaction, a holder that crashes right after taking a Redis lock, the
// whole process stopped (SIGSTOP) or killed (SIGKILL), a Redis restarted
// without persistence (its locks gone). The HTTP API (POST /api/faults) and
// `loadtest scenario` drive it; it only acts when enabled (SECKILL_FAULTS=on),
// because every fault is a deliberate outage of the shop it runs in.
package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/zkensemble"
)

// Kinds of fault, as the API names them.
const (
	KindPauseHolder     = "pause_holder"
	KindExpireZKSession = "expire_zk_session"
	KindSlowDB          = "slow_db"
	KindCrashAfterSetNX = "crash_after_setnx"
	KindStopProcess     = "stop_process"
	KindKillProcess     = "kill_process"
	KindRestartRedis    = "restart_redis"
	KindNestedLock      = "nested_lock"
	KindClockSkew       = "clock_skew"
	KindSlowWork        = "slow_work"
	KindDropReply       = "drop_reply"
)

// MaxDuration bounds every fault's duration: a fault is a demonstration, not
// a way to take the shop down for good (and 30 s stays under MariaDB's
// default innodb_lock_wait_timeout of 50 s, so a slowed order still ends).
const MaxDuration = 30 * time.Second

// Sentinel errors of this package.
var (
	// ErrDisabled: faults are off on this replica (SECKILL_FAULTS is not "on").
	ErrDisabled = errors.New("faults: fault injection is disabled on this replica")
	// ErrNoSession: the ZooKeeper strategy has no session to expire yet.
	ErrNoSession = errors.New("faults: no zookeeper session to expire")
)

// Kind describes one fault for GET /api/faults and the dashboard.
type Kind struct {
	Name        string   `json:"kind"`
	Params      []string `json:"params"`
	Description string   `json:"description"`
}

// Kinds lists the faults this package implements.
func Kinds() []Kind {
	return []Kind{
		{KindPauseHolder, []string{"ms"}, "the next locked critical section on this replica stalls ms after its lock check, " +
			"before its write: a GC pause past the lock's TTL (only fencing survives it)"},
		{KindNestedLock, []string{"ms"}, "the next locked critical section on this replica takes its lock again, as the " +
			"same holder, waiting at most ms: a non-reentrant lock waits for itself (nested_lock_timeout), a reentrant " +
			"one (redisson) counts the hold"},
		{KindDropReply, []string{"sale_id"}, "the next lock script this replica runs on the sale's lock key runs on Redis, " +
			"and its reply is lost on the way back (seed 002: did the acquire that timed out succeed?)"},
		{KindSlowWork, []string{"ms"}, "the next locked critical section on this replica works ms longer, before its " +
			"lock check: a long business step that must stop if the lock is lost meanwhile (its renewal failed)"},
		{KindClockSkew, []string{"ms"}, "for the next 10 s, redis-getset on this replica reads its clock ms ahead: it " +
			"takes a live lock whose expiry (written by another replica's clock) it reads as past"},
		{KindGetSetReleaseGap, []string{"ms"}, "the next redis-getset release on this replica waits between its GET and its " +
			"DEL until another client has taken the lock over (at most ms): the DEL deletes the new holder's lock"},
		{KindGetSetTakeoverGap, []string{"ms"}, "the next redis-getset takeover of an expired lock on this replica waits " +
			"between its GET and its GETSET until another client's GETSET has won (at most ms): its GETSET loses and " +
			"writes its expiry over the winner's, whose release is then refused"},
		{KindExpireZKSession, []string{}, "expire this replica's ZooKeeper session from outside: its ephemeral lock nodes " +
			"vanish and every zookeeper lease it holds is lost"},
		{KindSlowDB, []string{"ms", "sale_id"}, "a separate transaction holds the sale row (SELECT ... FOR UPDATE) " +
			"for ms: orders wait on the row lock, time out and retry"},
		{KindCutDB, []string{"ms"}, "cut this replica off its database for ms: every connection closed (the server rolls " +
			"their transactions back), new ones refused, as a partition or a database crash looks from here"},
		{KindCrashAfterSetNX, []string{}, "the next redis-setnx-expire, redis or redis-getset lock taken on this replica is " +
			"abandoned as by a crash: setnx-expire dies before its EXPIRE (a lock held for ever), redis after its SET NX PX " +
			"(freed at the TTL), redis-getset after writing its expiry (freed when the others' clocks pass it)"},
		{KindStopProcess, []string{"ms"}, "SIGSTOP this replica for ms, then SIGCONT: a real whole-process pause " +
			"(GC, VM freeze) that stops lock watchdogs too"},
		{KindKillProcess, []string{"ms"}, "SIGKILL this replica after ms: a crash with locks held, no unlock, " +
			"no graceful shutdown"},
		{KindRestartRedis, []string{"node"}, "restart a Redis (node redis or redlock-N) as by a crash: without persistence " +
			"every key, every lock on it, is lost while its holders think they still hold it (the default Redis keeps " +
			"what its durability setting saved)"},
		{KindHoldReplication, []string{"ms"}, "for ms, the redis-sentinel master feeds no replica (its replica's link cut, " +
			"PSYNC refused): a lock taken meanwhile lives on the master only"},
		{KindKillRedisMaster, []string{"ms"}, "crash the redis-sentinel master, down for ms (more than the Sentinels' 1 s " +
			"down-after), and wait until the Sentinels promote the replica: locks the replica never saw are gone"},
		{KindKillZKServer, []string{"ms"}, "kill (SIGKILL) a follower of the three-server ZooKeeper ensemble, the one this " +
			"replica's session is on when it can, and start it again after ms: two servers of three are a quorum, the " +
			"session moves to a live server and keeps its locks"},
		{KindKillConsumer, []string{"point"}, "the next batch of queued orders this replica persists SIGKILLs the replica " +
			"before its transaction commits (before_commit) or after the commit and before the Redis ack (after_commit): " +
			"the entries stay pending and another replica reclaims them"},
	}
}

// Config is what a Service acts on beyond the replica's own services.
type Config struct {
	// Enabled: faults run (SECKILL_FAULTS=on); otherwise each returns ErrDisabled.
	Enabled bool
	// RedisAddr is this replica's Redis (SECKILL_REDIS_ADDR), node "redis";
	// RedlockAddrs its RedLock masters (SECKILL_REDLOCK_ADDRS), nodes
	// "redlock-1".."redlock-N" in that order. Empty: no such node.
	RedisAddr    string
	RedlockAddrs []string
	// SentinelAddrs and SentinelMaster name the replicated Redis of
	// redis-sentinel (hold_replication, kill_redis_master); empty: none.
	SentinelAddrs  []string
	SentinelMaster string
	// ReplyDrop is the hook on this replica's Redis that drop_reply arms;
	// nil: no default Redis, no such fault.
	ReplyDrop *lockstrategy.ReplyDropper
	// ZKEnsemble is the three-server ZooKeeper ensemble whose servers
	// kill_zk_server may kill (only when the zookeeper strategy runs on it).
	ZKEnsemble zkensemble.Ensemble
	// DBLink is the path to the database that cut_db cuts; nil: none.
	DBLink *DBLink
}

// Service injects faults into one replica.
type Service struct {
	cfg     Config
	orders  *order.Service
	lockers *lockstrategy.Instances
	store   *inventory.Store
	wg      sync.WaitGroup // slow_db holders and stop_process helpers still running
	// consumer is the replica's order-queue consumer (kill_consumer); nil: none.
	consumer consumerKiller
	zk       zkServerState // kill_zk_server's servers still down
}

// New returns a Service over this replica's order service, strategy cache
// and store, configured by cfg.
func New(cfg Config, orders *order.Service, lockers *lockstrategy.Instances, store *inventory.Store) *Service {
	return &Service{cfg: cfg, orders: orders, lockers: lockers, store: store}
}

// Enabled reports whether faults run on this replica.
func (s *Service) Enabled() bool { return s.cfg.Enabled }

// PauseHolder makes the next locked critical section on this replica stall
// for d before its write: the seed's "the holder is paused by a full GC, its
// lock expires, another client takes it, then the first one wakes and writes".
func (s *Service) PauseHolder(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	s.orders.PauseNextSection(d)
	return nil
}

// NestedLock makes the next locked critical section on this replica take
// its own lock again, waiting at most d (the reentrancy lesson).
func (s *Service) NestedLock(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	s.orders.NestNextSection(d)
	return nil
}

// SlowWork makes the next locked critical section on this replica work d
// longer before it checks its lease: the renewal-fails lesson.
func (s *Service) SlowWork(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	s.orders.SlowNextSection(d)
	return nil
}

// ErrNoReplyDrop: this replica has no default Redis to drop a reply of.
var ErrNoReplyDrop = errors.New("faults: this replica has no default Redis (drop_reply)")

// DropReply arms the drop of the next lock script's reply on sale id's
// lock key (the redis strategies of the default Redis).
func (s *Service) DropReply(saleID uint64) error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	if s.cfg.ReplyDrop == nil {
		return ErrNoReplyDrop
	}
	s.cfg.ReplyDrop.Arm(s.orders.LockKey(saleID))
	return nil
}

// ClockSkewFor is how long a clock_skew lasts before the clock is right
// again: a lesson's length, not the replica's lifetime.
const ClockSkewFor = 10 * time.Second

// ClockSkew makes redis-getset on this replica read its clock d ahead for
// ClockSkewFor (seed 000: the clients' clocks must agree).
func (s *Service) ClockSkew(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	redislock.SetClockSkew(d)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		time.Sleep(ClockSkewFor)
		redislock.SetClockSkew(0)
	}()
	return nil
}

// PausedHolders is the number of lock holders on this replica stalled by
// pause_holder right now: a client waits for it to be 1 before its next
// step, rather than sleeping and hoping the holder got there.
func (s *Service) PausedHolders() int64 { return s.orders.PausedSections() }

// sessionExpirer is what the zookeeper strategy offers (zklock.Locker); an
// interface here so that this package does not depend on the zk client.
type sessionExpirer interface {
	ExpireSession(ctx context.Context) error
	SessionID() int64
}

// ExpireZKSession expires this replica's ZooKeeper session, as a crashed or
// partitioned holder's session would: the seed's point that a ZooKeeper lock
// is released by the session, not by a TTL the holder must beat. It returns
// the id of the session it expired. The strategy's errors
// (lockstrategy.ErrMissingBackend without ZooKeeper) pass through.
func (s *Service) ExpireZKSession(ctx context.Context) (int64, error) {
	if !s.cfg.Enabled {
		return 0, ErrDisabled
	}
	l, err := s.lockers.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		return 0, err
	}
	z, ok := l.(sessionExpirer)
	if !ok {
		return 0, fmt.Errorf("faults: the zookeeper strategy (%T) cannot expire its session", l)
	}
	id := z.SessionID()
	if id == 0 {
		return 0, ErrNoSession
	}
	if err := z.ExpireSession(ctx); err != nil {
		return 0, err
	}
	return id, nil
}

func (s *Service) check(d time.Duration) error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	if d <= 0 || d > MaxDuration {
		return fmt.Errorf("faults: duration %v out of (0, %v]", d, MaxDuration)
	}
	return nil
}

// Wait blocks until every slow_db holder has let go and every stop_process
// helper has resumed the process (tests, graceful shutdown).
func (s *Service) Wait() { s.wg.Wait() }
