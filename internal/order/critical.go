package order

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// writeKind is how a section writes the stock, picked once per order from
// the sale's strategy (and, for a lock, its fencing).
type writeKind int

const (
	// writePlain: stock = read - 1, safe only under a lock that excludes.
	writePlain writeKind = iota
	// writeFenced: the plain write, rejected when a newer token than the
	// lease's has claimed the sale (ErrFenced).
	writeFenced
	// writeCAS: stock = read - 1 where the version is still the read's;
	// a conflict is retried from the read (db-optimistic).
	writeCAS
	// writeConditional: stock = stock - 1 where stock > 0 (db-conditional).
	writeConditional
	// writeReserved: the conditional decrement, persisting a unit already
	// taken from the strategy's own stock (redis-lua-stock).
	writeReserved
)

// errOverdrawn: the database had no unit left for a unit reserved from the
// strategy's own stock, which is therefore above the truth (giveBack).
var errOverdrawn = errors.New("order: the database had no unit for a reserved one")

// criticalSection is one purchase: read stock -> if 0: sold out -> per-user
// limit -> simulated work -> write the stock -> insert the order, the write
// and the insert in one transaction that commits before the caller unlocks.
type criticalSection struct {
	sale    inventory.Sale
	userID  string
	replica string
	idemKey *string // the buyer's idempotency key; nil without one
	// reserved is the unit taken from the strategy's own stock (writeReserved).
	reserved lockstrategy.Reservation
	db       *gorm.DB
	kind     writeKind
	// lease is the held lock, checked just before the write; nil where
	// the strategy takes none. token is its fencing token (0: none).
	lease lockstrategy.Lease
	token uint64
	// goesOn: the lease's holder writes though the lease was lost
	// (Strategy.GoesOnWhenLost).
	goesOn bool
	// faults are the replica's fault points: an injected slow work inside
	// the section, a pause before the write (nil in production).
	faults faultpoint.Hooks
	// batch: the section sells a batch of buyers (combining), not userID's
	// one order; nil for one order.
	batch *saleBatch
	// cas counts the CAS rounds a writeCAS section lost; shared by the
	// copies of cs that its retries run in.
	cas *casRounds
}

// casRounds are a CAS section's rounds: lost so far, and the most it may
// lose before ErrConflict.
type casRounds struct {
	lost, maxLost int
}

// inNewTx runs the section in a transaction of its own. A CAS section's
// runs in READ COMMITTED, so that its retry reads the stock anew in the
// same transaction (REPEATABLE READ would show it the first read's
// snapshot again). A losing CAS UPDATE waited for the winner's commit and
// was then granted the row, which it keeps until its transaction ends:
// retried in the same transaction, its second CAS holds the row and wins,
// where a new transaction gave the row up only after a rollback's round
// trip and went back to the end of the row's queue. A split sale's
// (stock_shards > 1) runs in READ COMMITTED too: an empty shard's UPDATE
// then keeps no lock on it, and the buyers walking the shards cannot
// deadlock (inventory.TakeUnit).
func (cs criticalSection) inNewTx(ctx context.Context) (inventory.Order, error) {
	var o inventory.Order
	var opts []*sql.TxOptions
	if cs.kind == writeCAS || cs.sale.StockShards > 1 {
		opts = append(opts, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	}
	err := cs.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		o, err = cs.run(ctx, tx)
		return err
	}, opts...)
	return o, err
}

// run sells one order in tx. The sale's row is locked by the stock write
// and held until the COMMIT, so the statements that do not need it come
// first: the read and the checks, the work, the order's INSERT (on a road
// with no lock and a limit of 1, the INSERT is the limit's check: the
// unique key orders_limit_one), and the stock write last; the conditional
// decrement goes with the COMMIT in one round trip (DecrementAndCommit). A
// limit above 1 with no lock, and a reserved unit, need the write first
// (writesFirst).
func (cs criticalSection) run(ctx context.Context, tx *gorm.DB) (inventory.Order, error) {
	if cs.batch != nil {
		return cs.runBatch(ctx, tx)
	}
	if cs.writesFirst() {
		return cs.runWriteFirst(ctx, tx)
	}
	row, err := cs.check(ctx, tx)
	if err != nil {
		return inventory.Order{}, err
	}
	o := cs.newOrder(stockLeftAfter(row))
	if err := cs.insert(ctx, tx, &o); err != nil {
		return inventory.Order{}, err
	}
	if cs.kind == writeConditional {
		// The last statement, sent with the COMMIT in one round trip: the
		// row is held inside the server only. tx is over after it.
		if err := inventory.TakeUnitAndCommit(ctx, tx, cs.sale, cs.userID); err != nil {
			return inventory.Order{}, err
		}
		return o, nil
	}
	if o.StockLeft, err = cs.take(ctx, tx, row); err != nil {
		return inventory.Order{}, err
	}
	return o, cs.notReclaimed(ctx, tx)
}

// runWriteFirst is run where the write comes first (writesFirst): a
// count with no lock (limitHeld) must see every other order of the buyer
// committed, which holds because each was inserted by a transaction that
// wrote the sale's row first. So here too: the write, the INSERT, then the
// count.
func (cs criticalSection) runWriteFirst(ctx context.Context, tx *gorm.DB) (inventory.Order, error) {
	row, err := cs.check(ctx, tx)
	if err != nil {
		return inventory.Order{}, err
	}
	left, err := cs.take(ctx, tx, row)
	if err != nil {
		return inventory.Order{}, err
	}
	o := cs.newOrder(left)
	if err := cs.insert(ctx, tx, &o); err != nil {
		return inventory.Order{}, err
	}
	if err := cs.limitHeld(ctx, tx); err != nil {
		return inventory.Order{}, err
	}
	return o, cs.notReclaimed(ctx, tx)
}

// newOrder is the section's order, before its INSERT.
func (cs criticalSection) newOrder(left *int64) inventory.Order {
	o := inventory.NewOrder(cs.sale, cs.userID, cs.replica, time.Now())
	o.FenceToken, o.IdempotencyKey, o.StockLeft = cs.token, cs.idemKey, left
	if cs.reserved.Ticket != "" {
		o.OrderTicket, o.AcceptedAt = &cs.reserved.Ticket, &cs.reserved.AcceptedAt
	}
	return o
}

// notReclaimed: past its bound, a unit taken from the strategy's own stock
// may have been reclaimed (given back) by a reconciliation that took this
// process for dead; then no order.
func (cs criticalSection) notReclaimed(ctx context.Context, tx *gorm.DB) error {
	if cs.kind != writeReserved {
		return nil
	}
	if err := inventory.CheckNotReclaimed(ctx, tx, cs.reserved.Ticket); err != nil {
		return fmt.Errorf("%w: %w", ErrPersistTimeout, err)
	}
	return nil
}

// noLock says nothing serialises this section's buyers but the database:
// the conditional decrement, a unit reserved from the strategy's stock, a
// CAS. Their per-user limit cannot be a read before the write.
func (k writeKind) noLock() bool { return !k.readsFirst() || k == writeCAS }

// limitByKey: the per-user limit of 1 on the lock-free roads
// (db-conditional, db-optimistic) is the INSERT's own unique key, with no
// read in the transaction. Every order of such a sale takes this road, so
// every order of it carries the key.
func (cs criticalSection) limitByKey() bool {
	return (cs.kind == writeConditional || cs.kind == writeCAS) && cs.sale.PerUserLimit == 1
}

// writesFirst: the stock write must come before the order's INSERT where
// the limit is counted with no lock (limitHeld: a limit above 1 on a
// lock-free road), and for a reserved unit: its sale's orders are mostly
// written by the group commit (commitReserved), whose plain reads count
// right only because every order of the sale is inserted by a transaction
// that locked the sale's row first.
func (cs criticalSection) writesFirst() bool {
	return cs.kind == writeReserved || (cs.kind.noLock() && cs.sale.PerUserLimit > 1)
}

// insert inserts the section's order o, with the limit-of-1 key where the
// INSERT is the limit's check. An INSERT refused by a unique key (that one,
// or the idempotency key's) answers as the section did when the write came
// first: sold out before a repeated idempotency key before the limit. Only
// a refused INSERT reads more: the stock where nothing read it, the key.
func (cs criticalSection) insert(ctx context.Context, tx *gorm.DB, o *inventory.Order) error {
	if cs.limitByKey() {
		inventory.WithLimitOneKey(o)
	}
	err := inventory.InsertOrder(ctx, tx, o)
	if !dberr.IsDuplicate(err) {
		return err
	}
	if !cs.kind.readsFirst() { // nothing read the stock yet
		row, rerr := inventory.ReadStock(ctx, tx, cs.sale.ID)
		if rerr != nil {
			return rerr
		}
		if row.Stock <= 0 {
			return ErrSoldOut
		}
	}
	if !errors.Is(err, inventory.ErrLimitOneTaken) {
		return err // the idempotency key's: ErrDuplicateRequest (asRowContention)
	}
	if cs.idemKey != nil {
		used, kerr := inventory.KeysUsed(ctx, tx, cs.sale.ID, []string{*cs.idemKey})
		if kerr != nil {
			return kerr
		}
		for _, u := range used {
			if u[0] == cs.userID {
				return ErrDuplicateRequest
			}
		}
	}
	return ErrLimitReached
}

// readsFirst says the write needs the stock read before it: every write
// but the conditional decrement, whose WHERE stock > 0 is the read (zero
// rows: sold out).
func (k writeKind) readsFirst() bool { return k != writeConditional && k != writeReserved }

// stockLeftAfter is the stock a write from row leaves (nil where the write
// read nothing: the conditional decrement).
func stockLeftAfter(row *inventory.StockRow) *int64 {
	if row == nil {
		return nil
	}
	left := row.Stock - 1
	return &left
}

// check is what comes before the order's INSERT: where the write needs it,
// the stock read, sold out?, the per-user limit under a lock; then the work
// and the lease check. row is the read (nil where nothing was read).
func (cs criticalSection) check(ctx context.Context, tx *gorm.DB) (*inventory.StockRow, error) {
	if !cs.kind.readsFirst() {
		return nil, cs.work(ctx)
	}
	row, err := inventory.ReadStock(ctx, tx, cs.sale.ID)
	if err != nil {
		return nil, err
	}
	if row.Stock <= 0 {
		return nil, ErrSoldOut
	}
	if cs.sale.PerUserLimit > 0 && !cs.kind.noLock() { // the lock or the row lock serialises buyers
		n, err := inventory.CountUserOrders(ctx, tx, cs.sale.ID, cs.userID)
		if err != nil {
			return nil, err
		}
		if n >= int64(cs.sale.PerUserLimit) {
			return nil, ErrLimitReached
		}
	}
	if err := cs.work(ctx); err != nil {
		return nil, err
	}
	return &row, nil
}

// take writes the stock the section's way from row and returns the stock
// it left (nil for the conditional decrement). A CAS that lost its round
// (the version moved since the read) is checked and written again here, in
// the same transaction: a lost round costs a read and a conditional update,
// up to cs.cas.maxLost rounds (then ErrConflict).
func (cs criticalSection) take(ctx context.Context, tx *gorm.DB, row *inventory.StockRow) (*int64, error) {
	for {
		var read inventory.StockRow
		if row != nil {
			read = *row
		}
		err := cs.write(ctx, tx, read)
		if err == nil {
			return stockLeftAfter(row), nil
		}
		if cs.kind != writeCAS || !errors.Is(err, inventory.ErrVersionConflict) {
			return nil, err
		}
		cs.cas.lost++
		if cs.cas.lost >= cs.cas.maxLost {
			return nil, ErrConflict
		}
		if row, err = cs.check(ctx, tx); err != nil {
			return nil, err
		}
	}
}

// work is the simulated business work that widens the race, the injected
// slow work, and the lease check just before the write.
func (cs criticalSection) work(ctx context.Context) error {
	if cs.sale.WorkMS > 0 {
		if err := lockstrategy.Sleep(ctx, time.Duration(cs.sale.WorkMS)*time.Millisecond); err != nil {
			return err
		}
	}
	if cs.lease != nil {
		faultpoint.Work(ctx, cs.faults) // slow_work, in a held section only
	}
	return cs.stillHeld(ctx)
}

// underLease runs the section held by cs.lease: inside the lease's
// transaction where the lock lives in one (db-pessimistic: the lock hands
// its transaction over, and leave commits or rolls it back), else in its
// own; a fenced section claims the fence first.
func (cs criticalSection) underLease(ctx context.Context) (inventory.Order, error) {
	db := cs.db
	tl, inLeaseTx := cs.lease.(lockstrategy.TxLease)
	if inLeaseTx {
		db = tl.Tx()
		// The lock is this transaction: a statement cancelled by the buyer's
		// ctx kills the connection, and the server releases the lock while
		// the section still runs (the next holder would enter before it
		// leaves). The section finishes, buyer gone or not; its statements
		// stay bounded by the server's lock wait timeout.
		ctx = context.WithoutCancel(ctx)
	}
	if cs.kind == writeFenced {
		if err := cs.claimFence(ctx, db); err != nil {
			return inventory.Order{}, err
		}
	}
	if inLeaseTx {
		return cs.run(ctx, db)
	}
	return cs.inNewTx(ctx)
}

// stillHeld checks, just before the write, that the lease was not lost
// during the work (expired, renewal failed), then takes the injected stall.
// A lost lease stops the work (ErrLockLost), unless the strategy's policy
// is to go on (GoesOnWhenLost, seed 002's aggressive one): then the
// section writes anyway and records that it went on knowingly (lease event
// went_on). The check cannot close the window entirely (a pause right
// after it), which is why fencing exists.
func (cs criticalSection) stillHeld(ctx context.Context) error {
	if cs.lease == nil {
		return nil
	}
	select {
	case <-cs.lease.Lost():
		if !cs.goesOn {
			return ErrLockLost
		}
		lockstrategy.LeaseObserverOf(ctx)(lockstrategy.LeaseEvent{Token: cs.token, Event: lockstrategy.LeaseWentOn, At: time.Now()})
	default:
	}
	faultpoint.BeforeWrite(ctx, cs.faults) // pause_holder: a paused process notices nothing
	return nil
}

// write writes the stock the section's way.
func (cs criticalSection) write(ctx context.Context, tx *gorm.DB, row inventory.StockRow) error {
	switch cs.kind {
	case writeFenced: // a newer holder's claim: ErrFenced (inventory's and ours are one)
		return inventory.WriteStockFenced(ctx, tx, cs.sale.ID, row.Stock-1, cs.token)
	case writeCAS:
		return inventory.WriteStockCAS(ctx, tx, cs.sale.ID, row.Stock-1, row.Version)
	case writeConditional: // no unit left on any shard: ErrSoldOut
		return inventory.TakeUnit(ctx, tx, cs.sale, cs.userID)
	case writeReserved:
		err := inventory.DecrementIfAvailable(ctx, tx, cs.sale.ID)
		if errors.Is(err, inventory.ErrSoldOut) {
			return fmt.Errorf("%w: %w", errOverdrawn, err)
		}
		return err
	default:
		return inventory.WriteStock(ctx, tx, cs.sale.ID, row.Stock-1)
	}
}

// claimFence makes the lease's token the sale's fence before the section
// reads; committed before the read, so a newer holder's claim then voids
// this one's write.
func (cs criticalSection) claimFence(ctx context.Context, db *gorm.DB) error {
	return inventory.ClaimFence(ctx, db, cs.sale.ID, cs.token)
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
