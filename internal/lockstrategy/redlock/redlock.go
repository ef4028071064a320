// Package redlock is the redlock strategy: antirez's
// RedLock through go-redsync over N independent Redis masters
// (SECKILL_REDLOCK_ADDRS, 3 by default, 5 accepted). A lock is held when
// SET key value NX PX ttl succeeded on a quorum of N/2+1 masters within the
// lock's validity, so one master that restarts empty (no persistence: it
// forgets the key) cannot hand the lock to a second holder on its own. It
// can together with a second: a master that restarts empty while a lock is
// held breaks the quorum of 2 of 3 (the second holder needs only it and one
// master the first never reached) unless it stays down for one TTL or
// persists with appendfsync always. RedLock's masters have no replicas, so
// there is no failover to speak of here. redsync does not renew: this package runs the watchdog (the
// Redisson pitfall: a TTL shorter than the work frees the lock mid-work).
//
// There is no fencing token (Lease.Token is 0): the masters share no counter,
// so nothing orders two holders once a pause outlives the TTL. That is
// Kleppmann's objection to RedLock, and why the sale's fencing needs the
// other strategies.
//
// # The herd livelock
//
// Under a flash sale's herd (hundreds of waiters on one key) RedLock as
// redsync runs it livelocks: 2,000 units took 151.6 s against 6.3 s for
// `redis`. redsync sends a try's SET NX to every master at once (one
// goroutine per master), not in an order all contenders share, so each
// master gives its vote to whichever contender reaches it first once the
// key is free there, and with hundreds arriving, and the holder's release
// reaching the masters at different moments, those are different
// contenders: each wins one master, nobody wins a quorum, every one
// releases its vote and retries 5-20 ms later, and meanwhile the freed
// votes go to yet other contenders. The lock sits free while the herd
// churns; Locker.Rounds counts it (failed quorum rounds, rounds per
// acquisition). With N contenders arriving together the chance that one of
// them wins 2 of 3 masters is about 3/N. Measured on the 3-replica demo
// (loadtest run --no-queue, 768 waiters): 2,188 acquisitions took 158,681
// rounds, 72.5 each, and the masters, busy with every waiter's three SET NX
// and three releases per round, answered the rounds slowly besides.
//
// Two defences, neither touching the algorithm (a majority of independent
// masters, validity = TTL - elapsed - drift, a failed try's votes released
// on every master at once, which redsync does before it returns):
//   - a per-process queue per key in front of the masters (queue.go): one
//     contender per process sends rounds, the next one its first round as
//     soon as the lease before it is released, so a herd of any size puts
//     one contender per replica on the masters;
//   - after a failed quorum round, a randomized backoff that doubles with
//     the failed rounds in a row, capped (splitBackoff), so that the
//     contenders whose votes split do not meet again in step.
//
// Options.NoQueue turns both off: the herd as redsync meets it, kept for
// the lesson redlock-herd.
package redlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredislib "github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Tunables, with redsync's own defaults where this package keeps them.
const (
	// DefaultTTL is the key's expiry when a sale sets no ttl_ms.
	DefaultTTL = 2 * time.Second
	// DriftFactor is redsync's default, 0.01: the validity of a lock is
	// ttl - (time the quorum took) - ttl*0.01, leaving 1% for clocks of
	// masters that run fast (the RedLock paper's CLOCK_DRIFT).
	DriftFactor = 0.01
	// MinMasters is the fewest masters accepted: with fewer than 3 the
	// quorum cannot survive the loss of a single master.
	MinMasters = 3
	// keyPrefix namespaces the lock keys on the masters.
	keyPrefix = "seckill:redlock:"
)

// Retry delays between tries while the lock is taken. redsync's defaults
// (32 tries, 50-250 ms apart: about 5 s in all) give up under a flash sale,
// where 2,000 buyers queue behind one key for longer than that, and a 50 ms
// floor makes every handoff wait for a sleeper. Here the wait is bounded by
// the caller's ctx (its request deadline), not by a try count, and the tries
// come 5-20 ms apart at random: short enough that the lock does not sit free
// while waiters sleep, jittered so that waiters do not poll in step.
const (
	minRetryDelay = 5 * time.Millisecond
	maxRetryDelay = 20 * time.Millisecond
	// The backoff after failed quorum rounds (splitBackoff).
	splitBackoffBase = 2 * time.Millisecond
	splitBackoffCap  = 100 * time.Millisecond
)

// ErrTooFewMasters means fewer than MinMasters redis clients were configured.
var ErrTooFewMasters = errors.New("redlock: fewer than 3 masters")

// Locker is the redlock strategy over a fixed set of masters.
type Locker struct {
	rs        *redsync.Redsync
	health    *health // pool.go
	ttl       time.Duration
	noRenewal bool
	masters   int
	opts      []redsync.Option
	counted   roundCounters // rounds.go
	queue     *queue        // queue.go; nil with Options.NoQueue
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "redlock",
		Description: "RedLock (go-redsync): SET NX PX on a quorum N/2+1 of independent Redis masters; one contender per process (a local queue), a randomized backoff after a split vote; watchdog extension, no fencing token.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedRedlock},
		Safe:        true,
		Tokens:      false,
		Expiry:      lockstrategy.ExpiryTTL,
		Renews:      true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			return New(b.Redlock, o)
		},
	})
}

// New returns a redlock Locker over masters (one client per independent
// master, at least MinMasters). o.TTL 0 means DefaultTTL; o.NoRenewal turns
// the watchdog off, so that the lease is lost at TTL even while held.
func New(masters []*goredislib.Client, o lockstrategy.Options) (*Locker, error) {
	if len(masters) < MinMasters {
		return nil, fmt.Errorf("%w: got %d", ErrTooFewMasters, len(masters))
	}
	h := newHealth(len(masters))
	pools := make([]redis.Pool, len(masters))
	for i, c := range masters {
		pools[i] = &guardedPool{pool: goredis.NewPool(c), h: h, i: i} // pool.go
	}
	ttl := o.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Locker{
		rs:        redsync.New(pools...),
		health:    h,
		ttl:       ttl,
		noRenewal: o.NoRenewal,
		masters:   len(masters),
		queue:     queueUnless(o.NoQueue),
		opts: []redsync.Option{
			redsync.WithExpiry(ttl),
			redsync.WithDriftFactor(DriftFactor),
			redsync.WithTimeoutFactor(float64(roundTimeout(ttl)) / float64(ttl)),
			// One try per TryLockContext: Lock below owns the retry loop.
			redsync.WithTries(1),
			// Not WithFailFast: see pool.go.
		},
	}, nil
}

// roundTimeout bounds one round of commands to the masters (a try, an
// extension, the release of a try taken as its caller gave up; a holder's
// release waits up to the TTL): redsync's 5% of the TTL, as the RedLock paper wants
// it far below the TTL, but at least 50 ms, so that a busy machine is not
// taken for dead masters.
func roundTimeout(ttl time.Duration) time.Duration {
	return max(ttl/20, 50*time.Millisecond)
}

// Lock tries until a quorum of masters holds key for this caller, ctx ends,
// or no quorum of masters has answered for a TTL, and at least a second
// (ErrNotAcquired). Unless NoQueue, it first waits for its turn among the
// process's contenders for key (queue.go).
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	released := func() {}
	if l.queue != nil {
		if err := l.queue.enter(ctx, key); err != nil {
			return nil, err
		}
		released = func() { l.queue.leave(key) }
	}
	le, err := l.lock(ctx, key, released)
	if err != nil {
		released()
	}
	return le, err
}

// lock is Lock's rounds, once the caller is in front of the local queue;
// released goes to the lease.
func (l *Locker) lock(ctx context.Context, key string, released func()) (lockstrategy.Lease, error) {
	var unreachableSince time.Time
	giveUp := max(l.ttl, time.Second)
	var rounds, split, splitInARow int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := l.rs.NewMutex(keyPrefix+key, l.opts...)
		// The try runs without the caller's cancellation: redsync releases a
		// failed try's partial keys with the try's ctx, and a cancelled one
		// would leave them on a minority of masters until TTL. redsync bounds
		// the try itself (roundTimeout), so cancellation still returns promptly.
		err := m.TryLockContext(context.WithoutCancel(ctx))
		rounds++
		if err == nil {
			if ctx.Err() != nil { // taken just as the caller gave up
				_ = release(context.Background(), m, roundTimeout(l.ttl))
				return nil, ctx.Err()
			}
			l.counted.acquisitions.Add(1)
			l.counted.rounds.Add(rounds)
			l.counted.split.Add(split)
			le := newLease(m, l.ttl, !l.noRenewal, lockstrategy.LeaseObserverOf(ctx), released)
			le.rounds, le.split = int(rounds), int(split)
			return le, nil
		}
		// redsync has already released this round's votes on every master.
		if v := votes(err, l.masters); v > 0 && v < l.masters/2+1 {
			split++
			splitInARow++
		} else {
			splitInARow = 0
		}
		switch {
		case contended(err):
			unreachableSince = time.Time{}
		case unreachableSince.IsZero():
			unreachableSince = time.Now()
		case time.Since(unreachableSince) > giveUp:
			return nil, fmt.Errorf("redlock: %w: no quorum of masters answered for %v: %w",
				lockstrategy.ErrNotAcquired, giveUp, err)
		}
		wait := retryDelay()
		if l.queue != nil && splitInARow > 0 {
			wait = splitBackoff(splitInARow)
		}
		if err := lockstrategy.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// Rounds returns the quorum rounds of this Locker's acquisitions so far.
func (l *Locker) Rounds() Rounds { return l.counted.read() }

// contended says a failed try met another holder (on a quorum, or on some
// masters while others failed), as opposed to masters that did not answer.
func contended(err error) bool {
	var taken *redsync.ErrTaken
	var nodeTaken *redsync.ErrNodeTaken
	// ErrFailed alone: a quorum said yes, but too late to leave any validity.
	return errors.As(err, &taken) || errors.As(err, &nodeTaken) || errors.Is(err, redsync.ErrFailed)
}

func retryDelay() time.Duration {
	return minRetryDelay + rand.N(maxRetryDelay-minRetryDelay)
}

// splitBackoff is the wait after the n-th failed quorum round in a row
// (n >= 1): at random up to a bound that doubles with n from
// splitBackoffBase, capped at splitBackoffCap ("full jitter"). Contenders
// whose votes split wait different times, so that the next round finds
// one of them alone.
func splitBackoff(n int64) time.Duration {
	bound := splitBackoffCap
	if n < 16 {
		bound = min(splitBackoffCap, splitBackoffBase<<n)
	}
	return minRetryDelay/5 + rand.N(bound)
}

func queueUnless(noQueue bool) *queue {
	if noQueue {
		return nil
	}
	return newQueue()
}
