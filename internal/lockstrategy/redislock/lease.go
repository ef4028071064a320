package redislock

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// drift is how much earlier than the TTL a holder must assume its lease gone.
func drift(ttl time.Duration) time.Duration { return lockstrategy.Drift(ttl) }

// lease is one holding of a `redis` lock.
type lease struct {
	l     *Locker
	k     keys
	id    string
	token uint64
	ttl   time.Duration
	// observe is told of the lease's events (lockstrategy.LeaseObserver).
	observe lockstrategy.LeaseObserver

	lost     chan struct{}
	lostOnce sync.Once

	// mu guards the timer (the watchdog's next renewal or, with NoRenewal,
	// the local expiry), validUntil and released. A timer callback rather
	// than a watchdog goroutine: a lease held for microseconds in a hot sale
	// should not cost a goroutine start and a hand-shake to stop it.
	mu         sync.Mutex
	timer      *time.Timer
	validUntil time.Time
	released   bool
}

// newLease starts the lease's watchdog, or its expiry timer with NoRenewal.
// start is a local time no later than the SET that granted the lock.
func newLease(l *Locker, k keys, id string, token uint64, start time.Time, observe lockstrategy.LeaseObserver) *lease {
	le := &lease{l: l, k: k, id: id, token: token, ttl: l.ttl, lost: make(chan struct{}), observe: observe}
	le.mu.Lock()
	defer le.mu.Unlock()
	le.validUntil = start.Add(l.ttl - drift(l.ttl))
	l.setHeld(id, true)
	// Granted at start: the TTL counts from the SET (or the hand-over).
	le.observe(lockstrategy.LeaseEvent{Token: token, Event: lockstrategy.LeaseGranted, At: start, TTL: l.ttl})
	if time.Until(le.validUntil) <= 0 {
		// Handed over so long ago that it may have expired already: it
		// cannot be trusted, and renewing it could extend someone else's.
		le.lose(lockstrategy.LeaseLost)
		le.timer = time.AfterFunc(time.Hour, func() {})
		le.timer.Stop()
		return le
	}
	if l.noRenewal {
		// The pitfall on purpose: the lease expires while held, and the
		// holder is told so (Lost) when the TTL runs out.
		le.timer = time.AfterFunc(time.Until(le.validUntil), func() { le.lose(lockstrategy.LeaseExpired) })
	} else {
		// Renew at ttl/3, or sooner if the lock was handed over a while ago
		// (a re-delivered hand-over): halfway to the end of its validity.
		le.timer = time.AfterFunc(max(0, min(le.ttl/3, time.Until(le.validUntil)/2)), le.renew)
	}
	return le
}

// Token is the fencing token: it grows with every acquisition of the key,
// across Redis restarts too (next_token in scripts.go).
func (le *lease) Token() uint64 { return le.token }

// Lost is closed when the lock is known lost: a renewal found another owner
// (or none), renewals failed until the lease ran out, or, with NoRenewal,
// the TTL passed.
func (le *lease) Lost() <-chan struct{} { return le.lost }

// lose marks the lease lost and tells the observer how (LeaseLost,
// LeaseExpired), once.
func (le *lease) lose(how string) {
	le.lostOnce.Do(func() {
		close(le.lost)
		le.event(how, 0)
	})
}

// event tells the observer of one of the lease's events.
func (le *lease) event(name string, ttl time.Duration) {
	le.observe(lockstrategy.LeaseEvent{Token: le.token, Event: name, At: time.Now(), TTL: ttl})
}

// renew is the watchdog, run every ttl/3 (Redisson's schedule). A
// renewal that finds the key gone or owned by someone else ends the lease at
// once; a renewal that errors is retried sooner, and the lease is declared
// lost only when the last successful renewal's validity has run out: a
// transient timeout does not cost the lock, a partition does. A renewal that
// races with Unlock is harmless: it is owner-checked, and its outcome is
// ignored once released.
func (le *lease) renew() {
	every := le.ttl / 3
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), every)
	n, err := renewScript.Run(ctx, le.l.rdb, []string{le.k.lock}, le.id, le.ttl.Milliseconds()).Int64()
	cancel()
	le.mu.Lock()
	defer le.mu.Unlock()
	switch {
	case le.released:
	case err == nil && n == 1:
		le.validUntil = start.Add(le.ttl - drift(le.ttl))
		le.timer.Reset(every)
		le.event(lockstrategy.LeaseRenewed, le.ttl)
	case err == nil:
		le.lose(lockstrategy.LeaseLost) // expired (the process stalled past the TTL) or taken
	default:
		left := time.Until(le.validUntil)
		if left <= 0 {
			le.lose(lockstrategy.LeaseLost)
			return
		}
		le.timer.Reset(min(every/3, left))
	}
}

// Unlock stops the renewal, then releases the lock if this lease still holds
// it, handing it to the first live waiter. ErrNotHeld means it did not (it
// expired and maybe went to someone else) or Unlock ran before.
func (le *lease) Unlock(ctx context.Context) error {
	le.mu.Lock()
	again := le.released
	le.released = true
	le.timer.Stop()
	le.mu.Unlock()
	if again {
		return lockstrategy.ErrNotHeld
	}
	start := time.Now()
	r, err := le.l.runQueue(ctx, releaseScript, le.k, le.id)
	le.l.setHeld(le.id, false)
	switch {
	case err != nil:
		return fmt.Errorf("redislock: release %s: %w", le.k.lock, err)
	case r.result == 0:
		le.observe(lockstrategy.LeaseEvent{Token: le.token, Event: lockstrategy.LeaseReleaseRefused, At: start})
		return lockstrategy.ErrNotHeld
	}
	le.event(lockstrategy.LeaseReleased, 0)
	le.l.deliver(le.k.lock, r.localID, r.handOver(start))
	return nil
}
