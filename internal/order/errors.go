package order

import (
	"context"
	"errors"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Outcomes of Place, as sentinels; httpapi maps each to one status code.
// Sold out, fenced and not found are the store's own findings: the same
// values as inventory's, so either name matches with errors.Is.
var (
	// ErrSoldOut: the stock is zero.
	ErrSoldOut = inventory.ErrSoldOut
	// ErrLockTimeout: the lock was not had within Config.LockWait.
	ErrLockTimeout = errors.New("order: lock not acquired in time")
	// ErrLimitReached: the user already has per_user_limit orders.
	ErrLimitReached = errors.New("order: per-user limit reached")
	// ErrConflict: db-optimistic lost every CAS round; the buyer may retry.
	ErrConflict = errors.New("order: too many concurrent writers")
	// ErrFenced: the write carried a stale fencing token and was rolled back;
	// the buyer may retry.
	ErrFenced = inventory.ErrFenced
	// ErrNestedLock: the nested Lock of the reentrancy fault (nested_lock)
	// waited for the lock its own order holds, to its bound: the lock is not
	// reentrant. Nothing was written.
	ErrNestedLock = errors.New("order: a nested lock waited for the lock its own order holds")
	// ErrNotOwner: the sale's strategy routes it to another replica
	// (consistent-hash), which the error names (lockstrategy.NotOwnerError).
	// Nothing was written; retry there.
	ErrNotOwner = errors.New("order: another replica owns this sale")
	// ErrNoFenceToken: a fenced sale's lock promises fencing tokens and gave
	// token 0 (a defect of the strategy): nothing was written.
	ErrNoFenceToken = errors.New("order: the lock gave no fencing token to a fenced sale")
	// ErrLockLost: the lease was lost before commit; nothing was written.
	ErrLockLost = errors.New("order: lock lost before commit")
	// ErrDBUnavailable: the database did not answer (connection refused,
	// closed, reset): nothing of this order was committed, unless the
	// connection died between the server's commit and its answer, which
	// nobody here can tell (the sale view counts what the database has).
	ErrDBUnavailable = errors.New("order: the database does not answer")
	// ErrSaleNotFound: no such sale.
	ErrSaleNotFound = inventory.ErrSaleNotFound
	// ErrDuplicateRequest: the buyer's idempotency key already made an
	// order of this sale; nothing new was written (KeyedOrder finds it).
	ErrDuplicateRequest = errors.New("order: this idempotency key already made an order")
	// ErrPersistTimeout: a unit reserved from the strategy's own stock could
	// not be persisted in time (a loaded database); it went back to the
	// store and the buyer may retry.
	ErrPersistTimeout = errors.New("order: the reserved unit could not be persisted in time")
	// ErrNoQueue means an async sale reached a replica that cannot queue
	// its orders (the sale's strategy keeps no stock in the default Redis).
	ErrNoQueue = errors.New("order: this sale's orders go through a queue this replica does not have")
	// ErrReservationExpired: the reservation was not paid before its pay_by.
	ErrReservationExpired = errors.New("order: the reservation expired before it was paid")
	// ErrOrderPending: the ticket's order is not made yet; try again.
	ErrOrderPending = errors.New("order: the ticket's order is still in the queue")
	// ErrOrderFailed: the ticket's order could not be made.
	ErrOrderFailed = errors.New("order: the ticket's order failed")
	// ErrNotYourOrder: the order is another user's.
	ErrNotYourOrder = errors.New("order: the order belongs to another user")
	// ErrAcceptUnknown: the queue's accept script was sent to Redis and its
	// reply was lost (a timeout, a reset): the unit may be taken and the
	// ticket queued, or not. Not a refusal: the buyer learns which by
	// retrying with the same idempotency key.
	ErrAcceptUnknown = errors.New("order: the queue's accept may have run: its reply was lost")
	// ErrOrderNotFound: no order or ticket by that reference.
	ErrOrderNotFound = errors.New("order: no such order or ticket")
)

// The layers that answer inside the order flow: the lock (not had in
// time, its backend down), the database (the critical section's read,
// write or insert) and a strategy's own stock store (redis-lua-stock).
const (
	LayerLock     = "lock"
	LayerDatabase = "database"
	LayerStore    = "store"
	// LayerQueue: the unit was taken and the order queued (202); the
	// order itself is made behind the queue.
	LayerQueue = "queue"
	// LayerIdempotency: a retried request answered with its first answer.
	LayerIdempotency = "idempotency"
)

// Outcome names, for metrics and logs.
const (
	OutcomeOK             = "ok"
	OutcomeQueued         = "queued" // 202: the unit taken, the order queued (not an order yet)
	OutcomeSoldOut        = "sold_out"
	OutcomeLockTimeout    = "lock_timeout"
	OutcomeLimitReached   = "limit_reached"
	OutcomeConflict       = "conflict"
	OutcomeFenced         = "fenced"
	OutcomeLockLost       = "lock_lost"
	OutcomeNestedLock     = "nested_lock_timeout"
	OutcomeNotOwner       = "not_owner"
	OutcomeNotFound       = "not_found"
	OutcomeCanceled       = "canceled"
	OutcomeReloading      = "stock_reloading"
	OutcomeDuplicate      = "duplicate_request"
	OutcomePersistTimeout = "persist_timeout"
	OutcomeDBUnavailable  = "db_unavailable"
	OutcomeBackendDown    = "backend_down"
	OutcomeAcceptUnknown  = "accept_unknown"
	OutcomeError          = "error"
)

// OutcomeOf names the outcome of err.
func OutcomeOf(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{nil, OutcomeOK}, {ErrSoldOut, OutcomeSoldOut}, {ErrLockTimeout, OutcomeLockTimeout},
		{ErrLimitReached, OutcomeLimitReached}, {ErrConflict, OutcomeConflict}, {ErrFenced, OutcomeFenced},
		{ErrLockLost, OutcomeLockLost}, {ErrNestedLock, OutcomeNestedLock}, {ErrNotOwner, OutcomeNotOwner}, {ErrSaleNotFound, OutcomeNotFound},
		{lockstrategy.ErrStockReloading, OutcomeReloading}, {ErrDuplicateRequest, OutcomeDuplicate},
		{ErrPersistTimeout, OutcomePersistTimeout}, {ErrDBUnavailable, OutcomeDBUnavailable},
		{ErrAcceptUnknown, OutcomeAcceptUnknown}, {lockstrategy.ErrBackendDown, OutcomeBackendDown},
	} {
		if err == c.err || (c.err != nil && errors.Is(err, c.err)) {
			return c.name
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return OutcomeCanceled
	}
	return OutcomeError
}
