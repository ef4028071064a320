package order

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// criticalSection is one purchase of DESIGN.md §4:
// read stock -> if 0: sold out -> simulated work -> write stock = read - 1 ->
// insert order, the write and the insert in one transaction that commits
// before the caller unlocks.
type criticalSection struct {
	sale    inventory.Sale
	userID  string
	replica string
	db      *gorm.DB
	pause   time.Duration // injected stall before the write (PauseNextSection)
	paused  *atomic.Int64 // sections inside their injected stall, for PausedSections
	// recount: nothing serialises this buyer's read with the other buyers'
	// writes (a conditional decrement, a reserved unit), so the per-user
	// limit is counted again after the insert (limitHeld).
	recount bool
}

// runLocked runs the section under a held lease.
func (cs criticalSection) runLocked(ctx context.Context, lease lockstrategy.Lease) (inventory.Order, error) {
	token := lease.Token()
	write := func(tx *gorm.DB, row inventory.StockRow) error {
		// The lease may have been lost during the work (expired, renewal
		// failed): a careful holder checks before writing. The check cannot
		// close the window entirely (a pause right after it), which is why
		// fencing exists.
		select {
		case <-lease.Lost():
			return ErrLockLost
		default:
		}
		if cs.pause > 0 {
			cs.paused.Add(1)
			time.Sleep(cs.pause) // not ctx-aware on purpose: a paused process notices nothing
			cs.paused.Add(-1)
		}
		if cs.sale.Fencing && token > 0 {
			err := inventory.WriteStockFenced(ctx, tx, cs.sale.ID, row.Stock-1, token)
			if errors.Is(err, inventory.ErrFenced) {
				return ErrFenced
			}
			return err
		}
		return inventory.WriteStock(ctx, tx, cs.sale.ID, row.Stock-1)
	}
	fenced := cs.sale.Fencing && token > 0
	if tl, ok := lease.(lockstrategy.TxLease); ok {
		if fenced {
			if err := cs.claimFence(ctx, tl.Tx(), token); err != nil {
				return inventory.Order{}, err
			}
		}
		return cs.inLeaseTx(ctx, tl.Tx(), token, write)
	}
	if fenced { // committed before the read: a newer holder's claim then voids this one's write
		if err := cs.claimFence(ctx, cs.db, token); err != nil {
			return inventory.Order{}, err
		}
	}
	return cs.inNewTx(ctx, token, write)
}

// claimFence makes token the sale's fence before the section reads.
func (cs criticalSection) claimFence(ctx context.Context, db *gorm.DB, token uint64) error {
	err := inventory.ClaimFence(ctx, db, cs.sale.ID, token)
	if errors.Is(err, inventory.ErrFenced) {
		return ErrFenced
	}
	return err
}

// runLockFree runs the section for a strategy that makes the write safe
// itself; CAS conflicts are retried from the read, up to MaxRetries.
func (cs criticalSection) runLockFree(ctx context.Context, lf lockstrategy.LockFree, retries *int) (inventory.Order, error) {
	// A CAS write fails if any order committed since the read (it bumped the
	// version), so only the conditional write needs the recount.
	cs.recount = lf.StockWrite() == lockstrategy.WriteConditional
	for attempt := 0; ; attempt++ {
		o, err := cs.inNewTx(ctx, 0, func(tx *gorm.DB, row inventory.StockRow) error {
			if lf.StockWrite() == lockstrategy.WriteConditional {
				err := inventory.DecrementIfAvailable(ctx, tx, cs.sale.ID)
				if errors.Is(err, inventory.ErrSoldOut) {
					return ErrSoldOut
				}
				return err
			}
			return inventory.WriteStockCAS(ctx, tx, cs.sale.ID, row.Stock-1, row.Version)
		})
		if !errors.Is(err, inventory.ErrVersionConflict) {
			return o, err
		}
		*retries = attempt + 1
		if attempt+1 >= lf.MaxRetries() {
			return o, ErrConflict
		}
		// Jittered backoff that grows with the losses: retrying at once only
		// meets the same crowd at the next version.
		backoff := time.Duration(rand.Int64N(int64(min(attempt+1, 10)) * int64(time.Millisecond)))
		if err := lockstrategy.Sleep(ctx, backoff); err != nil {
			return o, err
		}
	}
}

// reservePersistTimeout bounds the database half of a reserved order, so
// that a rebuild of a lost stock (lockstrategy.StockReloadSettle, longer)
// reads a database that counts every unit taken from the lost stock.
const reservePersistTimeout = lockstrategy.StockReloadSettle * 2 / 3

// runReserved takes the unit from the strategy's own stock first (atomic in
// Redis), then persists it with a conditional DB decrement; if that fails
// the unit goes back, so the two stocks agree. If the database had no unit
// left, the store's stock is above the truth and is zeroed instead.
func (cs criticalSection) runReserved(ctx context.Context, rs lockstrategy.Reserver, key string, undoTimeout time.Duration) (inventory.Order, error) {
	cs.recount = true
	r, ok, err := rs.Reserve(ctx, key)
	if err != nil {
		return inventory.Order{}, asBackendDown(err)
	}
	if !ok {
		return inventory.Order{}, ErrSoldOut
	}
	pctx, cancel := context.WithTimeout(ctx, reservePersistTimeout)
	overdrawn := false // the decrement found no unit (not the read: that one gives the unit back)
	o, err := cs.inNewTx(pctx, 0, func(tx *gorm.DB, _ inventory.StockRow) error {
		err := inventory.DecrementIfAvailable(pctx, tx, cs.sale.ID)
		overdrawn = errors.Is(err, inventory.ErrSoldOut)
		return err
	})
	cancel()
	if err != nil {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
		defer cancel()
		undo := rs.Unreserve
		if overdrawn {
			undo = rs.Overdrawn
			err = errors.Join(ErrSoldOut, err)
		}
		if uerr := undo(uctx, key, r); uerr != nil {
			err = errors.Join(err, uerr)
		}
	}
	return o, err
}

type writeFunc func(tx *gorm.DB, row inventory.StockRow) error

// inNewTx runs the section in a transaction of its own.
func (cs criticalSection) inNewTx(ctx context.Context, token uint64, write writeFunc) (inventory.Order, error) {
	var o inventory.Order
	err := cs.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		o, err = cs.body(ctx, tx, token, write)
		return err
	})
	return o, err
}

// inLeaseTx runs the section inside the lease's transaction (db-pessimistic);
// a savepoint undoes it on failure, and the lease's Unlock commits.
func (cs criticalSection) inLeaseTx(ctx context.Context, tx *gorm.DB, token uint64, write writeFunc) (inventory.Order, error) {
	if err := tx.SavePoint("place").Error; err != nil {
		return inventory.Order{}, err
	}
	o, err := cs.body(ctx, tx, token, write)
	if err != nil {
		if rerr := tx.RollbackTo("place").Error; rerr != nil {
			return o, errors.Join(err, rerr)
		}
	}
	return o, err
}

// body is read, checks, work, write, insert.
func (cs criticalSection) body(ctx context.Context, tx *gorm.DB, token uint64, write writeFunc) (inventory.Order, error) {
	row, err := inventory.ReadStock(ctx, tx, cs.sale.ID)
	if err != nil {
		return inventory.Order{}, err
	}
	if row.Stock <= 0 {
		return inventory.Order{}, ErrSoldOut
	}
	if cs.sale.PerUserLimit > 0 { // enough where the lock, the CAS or the row lock serialises buyers; else see limitHeld
		n, err := inventory.CountUserOrders(ctx, tx, cs.sale.ID, cs.userID)
		if err != nil {
			return inventory.Order{}, err
		}
		if n >= int64(cs.sale.PerUserLimit) {
			return inventory.Order{}, ErrLimitReached
		}
	}
	if cs.sale.WorkMS > 0 { // the simulated business work that widens the race
		if err := lockstrategy.Sleep(ctx, time.Duration(cs.sale.WorkMS)*time.Millisecond); err != nil {
			return inventory.Order{}, err
		}
	}
	if err := write(tx, row); err != nil {
		return inventory.Order{}, err
	}
	o := inventory.Order{SaleID: cs.sale.ID, UserID: cs.userID, ReplicaID: cs.replica, FenceToken: token}
	if err := inventory.InsertOrder(ctx, tx, &o); err != nil {
		return inventory.Order{}, err
	}
	if cs.recount {
		if err := cs.limitHeld(ctx, tx); err != nil {
			return inventory.Order{}, err
		}
	}
	return o, nil
}

// limitHeld is the per-user limit check that holds without a lock
// (db-conditional, redis-lua-stock): the plain count above reads tx's
// snapshot, so concurrent orders of one user all counted 0. Here tx has
// written the sale row, and every order of the sale is inserted by a
// transaction that wrote it first: the others are committed, and seen by a
// locking read, or wait for our commit. It counts after our insert, not
// before: a count's gap lock taken before the insert meets another sale's
// in the same index gap, and the two inserts deadlock (error 1213).
// ErrLimitReached rolls the write and the insert back.
func (cs criticalSection) limitHeld(ctx context.Context, tx *gorm.DB) error {
	if cs.sale.PerUserLimit <= 0 {
		return nil
	}
	n, err := inventory.CountUserOrdersLatest(ctx, tx, cs.sale.ID, cs.userID)
	if err != nil {
		return err
	}
	if n > int64(cs.sale.PerUserLimit) { // n counts our own order
		return ErrLimitReached
	}
	return nil
}
