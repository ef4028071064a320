// Package faults injects failures, on demand, into a running replica: a lock
// holder paused past its TTL (a GC pause), a ZooKeeper session expired from
// outside, a sale row held by a slow transaction, a holder that crashes
// right after taking a Redis lock, the whole process stopped (SIGSTOP) or
// killed (SIGKILL), a Redis restarted without persistence (its locks gone),
// and more. It only acts when enabled (SECKILL_FAULTS=on), because every
// fault is a deliberate outage of the shop it runs in.
//
// The table (Kinds, Find) declares each kind once: its parameters and their
// validation (Param, Kind.Parse), its texts in English and Chinese, its
// prerequisites (Needs), whether the chaos run may draw it (ChaosKinds) and
// its run function over the Service. POST and GET /api/faults and the
// dashboard's Faults page read it. Adding a fault is one entry in table.go
// and its run function in run.go.
//
// The faults that strike the order's road (a paused or slow holder, a
// nested lock, a crash right after the acquire, a clock skew, redis-getset's
// gaps, a killed consumer) are armed on the replica's faultpoint.Points,
// which the road calls at its named points: this package imports no package
// of the order path.
package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/eventlog"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/zkensemble"
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
	ReplyDrop *faultpoint.ReplyDropper
	// Points are the replica's fault points, which its order path, queue
	// consumer and strategies call; nil: the faults on the road are refused
	// (ErrNoPoints).
	Points *faultpoint.Points
	// ReplicaID names the replica in the faults it records.
	ReplicaID string
	// LockKey is a sale's lock key (order.Service.LockKey): drop_reply
	// drops a reply on it.
	LockKey func(saleID uint64) string
	// Events records each fault that ran, for the timeline; nil: not
	// recorded.
	Events FaultRecorder
	// ZooKeeper returns the replica's zookeeper strategy (building it on
	// first use), whose session, server and traffic its faults act on; nil:
	// no ZooKeeper.
	ZooKeeper func() (any, error)
	// ZKEnsemble is the three-server ZooKeeper ensemble whose servers
	// kill_zk_server may kill (only when the zookeeper strategy runs on it).
	ZKEnsemble zkensemble.Ensemble
	// DBLink is the path to the database that cut_db cuts; nil: none.
	DBLink *DBLink
	// Ring is this replica's consistent-hash ring view, which stale_ring
	// holds stale while the replica leaves the others' rings; nil: none.
	Ring *hashring.Membership
	// Injected, when set, is told the kind of every fault that ran
	// (metrics.ObserveFault: seckill_faults_injected_total).
	Injected func(kind string)
}

// FaultRecorder records a fault for the timeline (eventlog.Log).
type FaultRecorder interface{ Fault(f eventlog.Fault) }

// ErrNoPoints: this replica has no fault points (faults built without them).
var ErrNoPoints = errors.New("faults: this replica's order path has no fault points")

// ErrNoZooKeeper: this replica has no zookeeper strategy to act on.
var ErrNoZooKeeper = errors.New("faults: this replica has no zookeeper strategy")

// Service injects faults into one replica.
type Service struct {
	cfg   Config
	store *inventory.Store
	wg    sync.WaitGroup // slow_db holders and stop_process helpers still running
	// consumer: the replica runs an order-queue consumer (kill_consumer).
	consumer bool
	zk       zkServerState // kill_zk_server's servers still down
}

// New returns a Service over this replica's store (slow_db holds a sale's
// row in it), configured by cfg.
func New(cfg Config, store *inventory.Store) *Service {
	return &Service{cfg: cfg, store: store}
}

// points are the replica's fault points, once faults run and there are some.
func (s *Service) points() (*faultpoint.Points, error) {
	if !s.cfg.Enabled {
		return nil, ErrDisabled
	}
	if s.cfg.Points == nil {
		return nil, ErrNoPoints
	}
	return s.cfg.Points, nil
}

// armed checks d, then arms the fault on the replica's fault points.
func (s *Service) armed(d time.Duration, arm func(p *faultpoint.Points)) error {
	if err := s.check(d); err != nil {
		return err
	}
	p, err := s.points()
	if err != nil {
		return err
	}
	arm(p)
	return nil
}

// zooKeeper is the replica's zookeeper strategy.
func (s *Service) zooKeeper() (any, error) {
	if s.cfg.ZooKeeper == nil {
		return nil, ErrNoZooKeeper
	}
	return s.cfg.ZooKeeper()
}

// Enabled reports whether faults run on this replica.
func (s *Service) Enabled() bool { return s.cfg.Enabled }

// PauseHolder makes the next locked critical section on this replica stall
// for d before its write: the holder is paused (a full GC), its lock
// expires, another client takes it, then the first one wakes and writes.
func (s *Service) PauseHolder(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) { p.PauseNextSection(d) })
}

// NestedLock makes the next locked critical section on this replica take
// its own lock again, waiting at most d (the reentrancy lesson).
func (s *Service) NestedLock(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) { p.NestNextSection(d) })
}

// SlowWork makes the next locked critical section on this replica work d
// longer before it checks its lease: the renewal-fails lesson.
func (s *Service) SlowWork(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) { p.SlowNextSection(d) })
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
	s.cfg.ReplyDrop.Arm(s.cfg.LockKey(saleID))
	return nil
}

// RepliesDropped is the number of lock script replies drop_reply has
// dropped on this replica (0 without a default Redis): a fault armed is
// not yet a reply lost.
func (s *Service) RepliesDropped() int64 {
	if s.cfg.ReplyDrop == nil {
		return 0
	}
	return s.cfg.ReplyDrop.Dropped()
}

// ClockSkewFor is how long a clock_skew lasts before the clock is right
// again: a lesson's length, not the replica's lifetime.
const ClockSkewFor = 10 * time.Second

// ClockSkew makes redis-getset on this replica read its clock d ahead for
// ClockSkewFor: a lock whose expiry each client computes with its own clock
// is only as safe as the clients' clocks agree.
func (s *Service) ClockSkew(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) {
		p.SetClockSkew(d)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			time.Sleep(ClockSkewFor)
			p.SetClockSkew(0)
		}()
	})
}

// PausedHolders is the number of lock holders on this replica stalled by
// pause_holder right now: a client waits for it to be 1 before its next
// step, rather than sleeping and hoping the holder got there.
func (s *Service) PausedHolders() int64 {
	if s.cfg.Points == nil {
		return 0
	}
	return s.cfg.Points.Stalled()
}

// sessionExpirer is what the zookeeper strategy offers (zklock.Locker); an
// interface here so that this package does not depend on the zk client.
type sessionExpirer interface {
	ExpireSession(ctx context.Context) error
	SessionID() int64
}

// ExpireZKSession expires this replica's ZooKeeper session, as a crashed or
// partitioned holder's session would: a ZooKeeper lock is released by the
// session, not by a TTL the holder must beat. It returns
// the id of the session it expired. The strategy's errors
// (lockstrategy.ErrMissingBackend without ZooKeeper) pass through.
func (s *Service) ExpireZKSession(ctx context.Context) (int64, error) {
	if !s.cfg.Enabled {
		return 0, ErrDisabled
	}
	l, err := s.zooKeeper()
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
