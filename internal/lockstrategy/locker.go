// Package lockstrategy defines what a lock strategy builds (a Locker and its
// Lease, or, for the strategies that are not locks, a LockFree or a
// Reserver) and the registry that names them. Each strategy lives in a subpackage and registers itself in init,
// the way database/sql drivers do.
package lockstrategy

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	// ErrNotALock means a caller asked for a lock of a strategy that takes
	// none (a LockFree or a Reserver).
	ErrNotALock = errors.New("lockstrategy: strategy takes no lock")
	// ErrNotOwner means this replica does not own the key (consistent-hash:
	// another replica owns the sale on the ring); the error names the owner,
	// and the buyer may retry there.
	ErrNotOwner = errors.New("lockstrategy: another replica owns this key")
	// ErrMissingBackend means a strategy needs a backend that is not configured.
	ErrMissingBackend = errors.New("lockstrategy: backend not configured")
	// ErrStockReloading means a Reserver's stock is being rebuilt from the
	// database after its store lost it (a restart without persistence):
	// nothing was taken; retry shortly.
	ErrStockReloading = errors.New("lockstrategy: stock being reloaded")
	// ErrStockReloadClaimed is ErrStockReloading for the one caller that must
	// rebuild the stock: wait reserved.ReloadSettle, read the database's stock,
	// and call RestoreStock.
	ErrStockReloadClaimed = fmt.Errorf("%w (this caller rebuilds it)", ErrStockReloading)
	// ErrHolderCrashed is what Lock returns when an injected crash fired in
	// it (faultpoint.Hooks.Acquired): the lock was taken and then abandoned
	// as a crashed process abandons it. The caller holds nothing and must
	// write nothing.
	ErrHolderCrashed = errors.New("lockstrategy: the lock holder crashed (injected fault)")
)

// QuorumRounds is what a Lease of a quorum lock (redlock) also says: the
// rounds its acquisition took, the winning one included, and how many of
// them failed with this contender's votes split (it won some masters but no
// quorum). The order flow adds them to the sale's live figures.
type QuorumRounds interface {
	QuorumRounds() (rounds, split int)
}

// Kind is how a strategy keeps a sale's stock safe: under a lock, with a
// safe write and no lock, or by taking units from a stock of its own.
type Kind string

// The three kinds.
const (
	KindLock     Kind = "lock"      // a Locker: the critical section runs under the lock
	KindLockFree Kind = "lock-free" // a LockFree: no lock, a safe stock write
	KindReserve  Kind = "reserve"   // a Reserver: a unit taken from its own stock, then persisted
)

// Instance is what a strategy builds: exactly one of a Locker, a LockFree
// and a Reserver is set, the one its Strategy declares (Strategy.Kind).
// The order service takes the sale's path from it once per order.
type Instance struct {
	Locker   Locker
	LockFree LockFree
	Reserver Reserver
}

// Kind says which of the three is set.
func (i Instance) Kind() Kind {
	switch {
	case i.Locker != nil:
		return KindLock
	case i.LockFree != nil:
		return KindLockFree
	}
	return KindReserve
}

// impl is the one value set, for the capabilities some strategies add
// (io.Closer, a stock to report or reconcile).
func (i Instance) impl() any {
	switch i.Kind() {
	case KindLock:
		return i.Locker
	case KindLockFree:
		return i.LockFree
	}
	return i.Reserver
}

// As returns the instance's value as a T, if it is one: a capability a
// strategy adds beyond its kind (reconcile.Store on a Reserver, a session
// on the zookeeper Locker).
func As[T any](i Instance) (T, bool) {
	t, ok := i.impl().(T)
	return t, ok
}

// NotOwnerError is a Lock refused because another replica owns the key
// (consistent-hash); it is ErrNotOwner, and names the owner so that the
// buyer can retry there.
type NotOwnerError struct {
	Key      string
	Owner    string // the owner's replica id, "" when no replica owns it
	OwnerURL string
}

func (e *NotOwnerError) Error() string {
	return fmt.Sprintf("%s is owned by replica %s (%s), not this one", e.Key, e.Owner, e.OwnerURL)
}

// Unwrap makes it an ErrNotOwner.
func (e *NotOwnerError) Unwrap() error { return ErrNotOwner }

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
// a database transaction (SELECT ... FOR UPDATE). The lock hands Tx to its
// holder, which runs its own writes in it and ends it (COMMIT or ROLLBACK):
// ending the transaction releases the lock, so commit and unlock are one
// step, taken by the holder. Unlock then only rolls back a transaction the
// holder left open.
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

// LockFree is what the strategies that make the stock write safe without a
// lock build (db-optimistic, db-conditional): the order service takes no
// lock and uses the write it names instead of the plain read-modify-write.
type LockFree interface {
	StockWrite() WriteKind
	// MaxRetries bounds CAS retries; past it the buyer gets a conflict.
	MaxRetries() int
}

// neverLost is never closed: the Lost channel of leases that cannot be lost.
var neverLost = make(chan struct{})

// NeverLost returns a channel that is never closed, for leases that cannot be
// lost (in-process locks, no lock at all).
func NeverLost() <-chan struct{} { return neverLost }

// Reserver is what the strategies that keep the stock outside the database
// and take a unit from it atomically build (redis-lua-stock): the order
// service takes no lock, calls Reserve, then persists the order with a
// conditional DB decrement, and settles the reservation: Settled when the
// order committed, Unreserve when it failed, Overdrawn when the database had
// no unit for it. LoadStock runs once, when a sale is created.
//
// Each reservation stays "in flight" in the store until it is settled, and
// settling it is what gives a unit back: so a unit goes back at most once,
// however often a settlement is retried, and a reconciliation can count what
// is in flight (StockSnapshot).
//
// The store may lose the stock (Redis restarted without persistence). The
// database is the truth it is rebuilt from: Reserve then answers
// ErrStockReloadClaimed to one caller, which waits reserved.ReloadSettle and
// calls RestoreStock with the database's stock, and ErrStockReloading to the
// others meanwhile. A rebuild forgets what was in flight: the database it
// was read from counts those units.
type Reserver interface {
	LoadStock(ctx context.Context, key string, stock int64) error
	// Reserve takes one unit for buyer (where the stock is split, from its
	// home shard first); ok false means sold out.
	Reserve(ctx context.Context, key, buyer string) (r Reservation, ok bool, err error)
	// Settled ends r after its order committed.
	Settled(ctx context.Context, key string, r Reservation) error
	// Unreserve gives r's unit back, unless r is no longer in flight
	// (settled already, or the stock was rebuilt since).
	Unreserve(ctx context.Context, key string, r Reservation) error
	// Overdrawn says the database had no unit left for r: the store's stock
	// is above the truth (a rebuild counted an order still in flight); it is
	// set to 0 rather than given r's unit back.
	Overdrawn(ctx context.Context, key string, r Reservation) error
	// RestoreStock sets a lost stock again (only if it is still missing) and
	// ends the rebuild. returned are the sale's orders whose units went back
	// already (expired reservations): the rebuilt stock counts them, so
	// ReturnUnit must not give them back again.
	RestoreStock(ctx context.Context, key string, stock int64, returned []uint64) error
}

// Reservation is a unit a Reserver handed out: Ticket names it while it is
// in flight (and on its order), AcceptedAt is when the store took it (the
// store's clock).
type Reservation struct {
	Ticket     string
	AcceptedAt time.Time
}
