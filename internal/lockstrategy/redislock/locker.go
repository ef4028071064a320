// Package redislock is the `redis` strategy: the safe lock over one Redis
// (owner token, watchdog, fencing, a fair FIFO wait with a direct hand-over).
// Its Lua scripts are in scripts.go, its in-process waiters and listener in
// waiters.go, its lease and watchdog in lease.go.
package redislock

// The `redis` strategy, and why its wait looks the way it does.
//
// Holding: SET K id NX PX ttl (one atomic command, not SETNX then EXPIRE,
// which a crash between the two leaves without a TTL) with a random id,
// released by a Lua compare-and-delete (never DEL a lock you do not own),
// renewed by a watchdog every ttl/3 while held (Redisson's watchdog, so a
// slow holder does not lose the lock by expiry), with a fencing token raised
// in the same script (a paused holder whose lease expired is rejected by the
// storage, not by the lock).
//
// Waiting: the two usual ways both fail a flash sale. Polling (redsync: sleep
// a random 50-250 ms and retry) only looks fast because the releaser re-takes
// the lock at once while everyone else sleeps: unfair, p99 wait 0.25-1 s.
// A pub/sub broadcast on release ("listen for the delete") wakes
// every waiter for one winner: a thundering herd, 1/8 of redsync's rate at 64
// contenders. So this strategy keeps a FIFO of waiters in Redis and wakes ONE:
//
//  1. Lock runs acquireScript: if the lock is free and nobody live is queued
//     before us, take it; otherwise join the tail of K:q.
//  2. The queued goroutine waits on its own channel. Its process has ONE
//     listener per key (waiters.go) that BLPOPs K:n:<proc>, the process's
//     hand-over list, and passes each hand-over to the waiter it names.
//  3. Unlock runs releaseScript: compare-and-delete, and if a live waiter is
//     queued, hand the lock straight to it: SET K <its id>, raise the fence,
//     and push "id token" onto its process's list, or, when the waiter lives
//     in the releasing process, return it so Unlock delivers it in memory.
//     The new holder has its token without another round trip; nobody else
//     woke up.
//  4. The bounded fallback: every PollInterval the listener runs pollScript:
//     it renews the process's heartbeat K:p:<proc>, and if the lock is free
//     (its holder expired or died without handing over) it hands it to the
//     live head. A lost hand-over reply makes the listener requeue its
//     waiters (requeueScript), which also tells a waiter it holds the lock.
//  5. A process whose heartbeat is older than WaiterLease is dead; live_head
//     drops its waiters when they reach the head. A waiter whose ctx ends
//     returns at once and leaves by leaveScript (which passes on a lock that
//     was handed to it in the meantime).
//
// Properties: arrival order is the order of the acquireScript calls in
// Redis; at most one waiter is woken per release; nobody barges in ahead of
// the queue (a releaser that locks again joins the tail); cancellation is
// immediate; a process holds one blocked connection per key it waits on,
// not one per waiter.
//
// Limits, stated honestly:
//   - A crashed process's waiters hold the queue up to WaiterLease, and if
//     the lock was handed to one of them just before it died, one TTL more.
//   - A process stalled beyond WaiterLease (GC, SIGSTOP) has its waiters
//     dropped; they re-join at the tail when it wakes: fairness, not safety,
//     suffers.
//   - One Redis: no replication safety (a failover may lose the lock; that is
//     RedLock's argument), and the scripts touch keys derived from the lock
//     key without declaring them, which a cluster would reject.
//   - FIFO gives up the releaser's immediate re-take that makes polling look
//     fast; the direct hand-over (token in the wake-up, delivered in memory
//     within a process) is what pays for it.
//   - The client's ReadTimeout must exceed PollInterval (the default 3 s
//     does), and its PoolSize must leave one connection per waited-on key.

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// DefaultTTL is the lease TTL when Options.TTL is 0.
const DefaultTTL = 2 * time.Second

// PollInterval bounds a listener's BLPOP: how often it renews its process's
// heartbeat and runs the fallback (a free lock nobody handed over).
const PollInterval = 100 * time.Millisecond

// WaiterLease is how long a process's heartbeat keeps its waiters' places in
// the queue; a process silent for longer is taken for dead and its waiters
// are skipped. Five polls: a live process on a busy machine does not miss
// that many.
const WaiterLease = 500 * time.Millisecond

// leaveTimeout bounds the cleanup of a waiter that gives up, and the
// listener's own calls; they run on a fresh ctx because the caller's is
// usually the one that ended.
const leaveTimeout = 2 * time.Second

// pollArg is PollInterval as BLPOP's timeout in seconds. go-redis's BLPop
// rounds sub-second timeouts up to 1 s, so the command is sent with Do.
var pollArg = strconv.FormatFloat(PollInterval.Seconds(), 'f', 3, 64)

// Locker is the `redis` strategy over one Redis client.
type Locker struct {
	rdb       *redis.Client
	ttl       time.Duration
	noRenewal bool
	proc      string           // this instance's name in waiter ids
	faults    faultpoint.Hooks // an injected crash fires right after the SET NX PX
	stride    uint64           // fencing tokens each acquisition reserves (SetTokenStride); 0 means 1

	mu      sync.Mutex
	seq     uint64
	waiting map[string]*keyWaiters
	held    map[string]struct{} // ids of leases not yet unlocked (and crash-abandoned locks)
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis",
		Description: "SET NX PX with an owner token, Lua compare-and-delete, watchdog renewal, " +
			"fencing token; waiters queued FIFO in Redis and handed the lock one at a time.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:   true,
		Tokens: true,
		Expiry: lockstrategy.ExpiryTTL,
		Renews: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			l := New(b.Redis, o)
			l.faults = b.Faults
			return l, nil
		},
	})
}

// New returns the `redis` strategy over rdb. o.TTL 0 means DefaultTTL;
// o.NoRenewal turns the watchdog off.
func New(rdb *redis.Client, o lockstrategy.Options) *Locker {
	ttl := o.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Locker{rdb: rdb, ttl: ttl, noRenewal: o.NoRenewal,
		proc: lockstrategy.NewOwner()[:12], waiting: map[string]*keyWaiters{}, held: map[string]struct{}{}}
}

// SetTokenStride makes every acquisition reserve n fencing tokens: the
// holding gets token t and the next acquisition of the key gets t+n or more,
// so that a holder may number up to n holdings of its own t..t+n-1 (the
// local hand-offs of redis-2level). Call it before the first Lock.
func (l *Locker) SetTokenStride(n uint64) { l.stride = n }

// Lock takes key, waiting in the key's FIFO queue until the lock is handed
// over, ctx is done (ctx's error, the queue entry removed), or Redis fails.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &waiter{id: holderID(l.proc, l.ttl), ch: make(chan handOver, 1)}
	kw := l.register(key, w)
	defer l.unregister(kw, w)
	start := time.Now() // before the SET: the local expiry errs early, the safe side
	r, err := l.runQueue(ctx, acquireScript, kw.k, w.id)
	if err != nil && lockstrategy.IsTransport(err) && ctx.Err() == nil {
		// A retry that checks first: the reply was lost, not necessarily the
		// acquire. Look for our own id before anything else (requeueScript:
		// the lock if it is ours, else the queue, joined once): trying again
		// blindly would wait a TTL for our own lock, or queue us twice.
		r, err = l.runQueue(ctx, requeueScript, kw.k, w.id)
	}
	if err != nil {
		return nil, l.leave(kw, w, fmt.Errorf("redislock: acquire %s: %w", key, err))
	}
	l.deliver(key, r.localID, r.handOver(start))
	if r.result > 0 {
		if faultpoint.Acquired(l.faults) {
			return nil, l.abandon(key, w.id) // held, abandoned: the key expires after its TTL
		}
		return newLease(l, kw.k, w.id, uint64(r.result), start, lockstrategy.LeaseObserverOf(ctx)), nil
	}
	l.markEnqueued(kw, w)
	select {
	case h := <-w.ch:
		if faultpoint.Acquired(l.faults) {
			return nil, l.abandon(key, w.id)
		}
		return newLease(l, kw.k, w.id, h.token, h.since, lockstrategy.LeaseObserverOf(ctx)), nil
	case <-ctx.Done():
		return nil, l.leave(kw, w, ctx.Err())
	}
}

// crashErr is the error of an acquisition an injected crash took:
// the lock is held in Redis with its TTL, no watchdog renews it, nobody
// releases it; it frees itself when the TTL runs out.
func crashErr(key string) error {
	return fmt.Errorf("redislock: acquire %s: %w", key, lockstrategy.ErrHolderCrashed)
}

// abandon leaves the lock id took to its TTL, as a crashed holder would: it
// counts as held, so no listener of this process releases it early.
func (l *Locker) abandon(key, id string) error {
	l.setHeld(id, true)
	time.AfterFunc(l.ttl, func() { l.setHeld(id, false) })
	return crashErr(key)
}

// leave takes w out of the queue on a fresh bounded ctx (the caller's has
// usually ended), releasing a lock handed to it meanwhile, and returns cause.
// If Redis cannot be reached, the entry stays queued until it reaches the
// head; it is then handed the lock, which nobody uses and which expires one
// TTL later (or sooner, if the whole process dies, with its heartbeat).
func (l *Locker) leave(kw *keyWaiters, w *waiter, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	kw.queueMu.Lock() // no requeue of w between its exit and its LREM
	l.dropWaiter(kw, w.id)
	since := time.Now()
	r, err := l.runQueue(ctx, leaveScript, kw.k, w.id)
	kw.queueMu.Unlock()
	if err == nil {
		l.deliver(kw.k.lock, r.localID, r.handOver(since))
	}
	return cause
}
