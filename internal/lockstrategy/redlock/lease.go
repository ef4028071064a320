package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redsync/redsync/v4"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// lease is one holding of a RedLock. One goroutine per lease watches it: with
// renewal it extends the keys every ttl/3 (Redisson's watchdog
// cadence) and closes Lost when an extension does not reach a quorum; without
// renewal it closes Lost when the validity redsync computed runs out. Its
// observer is told which (lockstrategy.LeaseLost, LeaseExpired), as the
// redis lease tells it; the token is 0 (RedLock has none).
//
// A redsync.Mutex is not safe for concurrent use (Extend writes its validity),
// so the watcher is the only user of m until Unlock has stopped it.
type lease struct {
	m        *redsync.Mutex
	ttl      time.Duration
	lost     chan struct{}
	lostOnce sync.Once
	stop     chan struct{} // closed by Unlock: the watcher exits
	done     chan struct{} // closed by the watcher on exit
	unlocked atomic.Bool
	observe  lockstrategy.LeaseObserver
	// released gives the next local contender its turn (queue.go): run
	// once, by Unlock after the keys' release or when the lease is lost
	// (the masters may then grant the lock to anyone).
	released func()
	// rounds and split are the rounds the acquisition took, and the failed
	// ones with split votes (lockstrategy.QuorumRounds).
	rounds, split int
}

var _ lockstrategy.QuorumRounds = (*lease)(nil)

func (le *lease) QuorumRounds() (rounds, split int) { return le.rounds, le.split }

func newLease(m *redsync.Mutex, ttl time.Duration, renew bool, observe lockstrategy.LeaseObserver, released func()) *lease {
	le := &lease{m: m, ttl: ttl, lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
		observe: observe, released: sync.OnceFunc(released)}
	go le.watch(ttl/3, renew)
	return le
}

func (le *lease) Token() uint64         { return 0 } // RedLock has no fencing token (package doc)
func (le *lease) Lost() <-chan struct{} { return le.lost }

// markLost tells the observer how the lease ended (how: LeaseLost,
// LeaseExpired), then closes Lost, once.
func (le *lease) markLost(how string) {
	le.lostOnce.Do(func() {
		le.observe(lockstrategy.LeaseEvent{Event: how, At: time.Now()})
		close(le.lost)
		le.released()
	})
}

func (le *lease) watch(every time.Duration, renew bool) {
	defer close(le.done)
	for {
		wait := every
		if !renew {
			wait = time.Until(le.m.Until())
		}
		t := time.NewTimer(wait)
		select {
		case <-le.stop:
			t.Stop()
			return
		case <-t.C:
		}
		if !renew {
			le.markLost(lockstrategy.LeaseExpired)
			return
		}
		// The extension must land before the current validity ends (past it
		// another client may hold a quorum), and within one round's timeout,
		// so that a master being probed again (pool.go) cannot stall it.
		ctx, cancel := context.WithDeadline(context.Background(), earliest(le.m.Until(), roundTimeout(le.ttl)))
		ok, _ := le.m.ExtendContext(ctx)
		cancel()
		if !ok {
			// Fewer than a quorum still had our value (the keys expired, were
			// deleted, or masters did not answer): stop the critical section.
			le.markLost(lockstrategy.LeaseLost)
			return
		}
	}
}

// Unlock stops the watchdog and deletes the keys that still hold this lease's
// value (redsync's owner-checked Lua). It returns ErrNotHeld when a quorum no
// longer held them (the lease had expired), or on a second call.
func (le *lease) Unlock(ctx context.Context) error {
	if !le.unlocked.CompareAndSwap(false, true) {
		return lockstrategy.ErrNotHeld
	}
	defer le.released()
	close(le.stop)
	select {
	case <-le.done:
	case <-ctx.Done():
		// An extension is in flight; the keys expire by themselves at TTL.
		return ctx.Err()
	}
	// The holder's release may take up to the TTL (or the caller's
	// deadline, if sooner): past the TTL the keys are gone by themselves,
	// and a release cut at one round's 5% of the TTL on a busy machine left
	// the lock held, and its next buyers waiting, until the TTL.
	return release(ctx, le.m, le.ttl)
}

// release deletes m's keys on every master that still holds m's value,
// within bound (or the caller's deadline, if sooner).
func release(ctx context.Context, m *redsync.Mutex, bound time.Duration) error {
	rctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	ok, err := m.UnlockContext(rctx)
	if ok {
		return nil
	}
	var taken *redsync.ErrTaken
	var nodeTaken *redsync.ErrNodeTaken
	if err == nil || errors.Is(err, redsync.ErrLockAlreadyExpired) || errors.As(err, &taken) || errors.As(err, &nodeTaken) {
		return fmt.Errorf("redlock: %w (expired or taken on a quorum of masters)", lockstrategy.ErrNotHeld)
	}
	return fmt.Errorf("redlock: unlock: %w", err)
}

// earliest returns the sooner of t (zero: none) and now+d.
func earliest(t time.Time, d time.Duration) time.Time {
	if soon := time.Now().Add(d); t.IsZero() || soon.Before(t) {
		return soon
	}
	return t
}
