package lockstrategy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NopLease is the lease of strategies that take no lock at all.
func NopLease() Lease { return nopLease{} }

type nopLease struct{}

func (nopLease) Token() uint64                { return 0 }
func (nopLease) Lost() <-chan struct{}        { return neverLost }
func (nopLease) Unlock(context.Context) error { return nil }

// NewOwner returns a random owner token (128 bits, hex): what a lock records
// as its holder, so that release can check it deletes only its own lock.
func NewOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// Drift is how much earlier than its TTL a holder must assume its lease
// gone: clocks drift, and the lock reached its server after the local start
// time was taken. Redsync's factor (1%) plus the Redlock paper's 2 ms.
func Drift(ttl time.Duration) time.Duration { return ttl/100 + 2*time.Millisecond }

// Sleep waits d or until ctx is done, and returns ctx's error in that case.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// holderKey is the context key of WithHolder.
type holderKey struct{}

// WithHolder names the holder a reentrant lock counts holds for: a Lock
// under a ctx with the same holder, in the same process, while the holder
// has the lock, takes it again instead of waiting for itself. Go has no
// thread id to play Java's part (Redisson's owner is its client id plus the
// thread id), so the caller says which calls are one holder.
func WithHolder(ctx context.Context, holder string) context.Context {
	return context.WithValue(ctx, holderKey{}, holder)
}

// Holder is ctx's holder (WithHolder), or "" when it names none: every
// Lock is then a holder of its own.
func Holder(ctx context.Context) string {
	h, _ := ctx.Value(holderKey{}).(string)
	return h
}

// Lease events, as a client sees its lease (LeaseObserver).
const (
	LeaseGranted  = "granted"  // the lock was had, for LeaseEvent.TTL
	LeaseRenewed  = "renewed"  // the watchdog extended it by TTL
	LeaseLost     = "lost"     // a renewal found it gone or another's, or renewals failed past its validity
	LeaseExpired  = "expired"  // its TTL ran out while held, nothing renewing it (the client's own clock)
	LeaseReleased = "released" // Unlock released it
	// LeaseFreedOther: Unlock deleted a lock another client held (a plain
	// DEL after the lease had expired and the lock had changed hands).
	LeaseFreedOther = "freed_other"
	// LeaseReleaseRefused: Unlock found the lock gone or another client's
	// and left it (an owner-checked release after the lease had expired).
	LeaseReleaseRefused = "release_refused"
	// LeaseWentOn: the holder found its lease lost at its check before the
	// write and wrote anyway, by its strategy's policy (GoesOnWhenLost:
	// seed 002's aggressive one). Recorded by the holder (the order flow),
	// not the lock.
	LeaseWentOn = "went_on"
)

// LeaseEvent is one event of a lease as its client saw it.
type LeaseEvent struct {
	Token uint64
	Event string // LeaseGranted, ...
	At    time.Time
	TTL   time.Duration // the lease's TTL (granted, renewed); 0 otherwise
}

// LeaseObserver is told of a lease's events by the strategies that know
// them (redis, redis-sentinel; redis-no-owner its releases only; redlock
// its end only, lost or expired, with token 0). It must
// not block: it is called on the
// lock's path and from its watchdog.
type LeaseObserver func(LeaseEvent)

type leaseObserverKey struct{}

// WithLeaseObserver makes the leases taken under ctx report to obs.
func WithLeaseObserver(ctx context.Context, obs LeaseObserver) context.Context {
	return context.WithValue(ctx, leaseObserverKey{}, obs)
}

// LeaseObserverOf is the observer of ctx (WithLeaseObserver); one that
// does nothing when there is none.
func LeaseObserverOf(ctx context.Context) LeaseObserver {
	if obs, ok := ctx.Value(leaseObserverKey{}).(LeaseObserver); ok && obs != nil {
		return obs
	}
	return func(LeaseEvent) {}
}
