// Package lockstrategy defines what a lock strategy is (Locker, Lease), the
// optional interfaces of strategies that are not locks, and the registry that
// names them. Each strategy lives in a subpackage and registers itself in init,
// the way database/sql drivers do.
package lockstrategy

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// Sentinel errors shared by every strategy; compare them with errors.Is.
var (
	// ErrNotAcquired means the strategy gave up waiting for the lock (its own
	// bound, not the caller's ctx).
	ErrNotAcquired = errors.New("lockstrategy: lock not acquired")
	// ErrLockLost means the lease was lost while held (expired, renewal failed,
	// session expired); the critical section must not commit.
	ErrLockLost = errors.New("lockstrategy: lock lost")
	// ErrNotHeld means Unlock found the lock no longer held by this lease.
	ErrNotHeld = errors.New("lockstrategy: lock not held by this lease")
	// ErrUnknownStrategy means no strategy is registered under a name.
	ErrUnknownStrategy = errors.New("lockstrategy: unknown strategy")
	// ErrMissingBackend means a strategy needs a backend that is not configured.
	ErrMissingBackend = errors.New("lockstrategy: backend not configured")
)

// Locker takes a named lock.
type Locker interface {
	// Lock blocks until key is held, ctx is done, or the strategy gives up.
	Lock(ctx context.Context, key string) (Lease, error)
}

// Lease is one holding of a lock.
type Lease interface {
	Token() uint64                    // fencing token; 0 where the strategy has none
	Lost() <-chan struct{}            // closed when the lock is known lost (renewal failed, session expired)
	Unlock(ctx context.Context) error // releases only what this lease holds
}

// TxLease is an optional Lease interface for strategies whose lock lives inside
// a database transaction (SELECT ... FOR UPDATE). The order service runs its
// stock write and order insert in Tx, so that commit and unlock are one step.
type TxLease interface {
	Lease
	Tx() *gorm.DB
}

// WriteKind says how a lock-free strategy makes the stock write safe.
type WriteKind int

const (
	// WriteCAS: UPDATE ... SET stock=?, version=version+1 WHERE id=? AND
	// version=?; zero rows means another buyer won, so read again and retry.
	WriteCAS WriteKind = iota + 1
	// WriteConditional: UPDATE ... SET stock=stock-1 WHERE id=? AND stock>0;
	// the database serialises the decrement itself.
	WriteConditional
)

// LockFree is the optional interface of strategies that are not locks
// (db-optimistic, db-conditional). The order service detects it, as
// database/sql detects optional driver interfaces, and asks for the write it
// names instead of the plain read-modify-write. Their Lock is a no-op.
type LockFree interface {
	Locker
	StockWrite() WriteKind
	// MaxRetries bounds CAS retries; past it the buyer gets a conflict.
	MaxRetries() int
}

// neverLost is never closed: the Lost channel of leases that cannot be lost.
var neverLost = make(chan struct{})

// NeverLost returns a channel that is never closed, for leases that cannot be
// lost (in-process locks, no lock at all).
func NeverLost() <-chan struct{} { return neverLost }

// Reserver is the optional interface of strategies that keep the stock outside
// the database and take a unit from it atomically (redis-lua-stock): the
// order service calls Reserve instead of Lock, then persists the order with a
// conditional DB decrement, and calls Unreserve if that transaction fails.
// Its Lock is a no-op. LoadStock runs once, when a sale is created.
type Reserver interface {
	Locker
	LoadStock(ctx context.Context, key string, stock int64) error
	// Reserve takes one unit; false means sold out.
	Reserve(ctx context.Context, key string) (bool, error)
	Unreserve(ctx context.Context, key string) error
}
