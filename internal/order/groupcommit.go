package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Group commit of redis-lua-stock: the units reserved by the concurrent
// buyers of one sale on this replica are persisted together, in one
// transaction that holds the sale's row once for all of them, instead of
// one transaction (and one turn on the row) each. Each buyer still gets its
// own order or its own refusal; the checks are the section's (the stock,
// the per-user limit, the idempotency key, the reclaim), made for the whole
// batch under the row lock.

// Defaults of Config.ReservedBatch and Config.ReservedBatchWait.
const (
	defaultReservedBatch     = 128
	defaultReservedBatchWait = time.Millisecond
)

// reservedOrder is one buyer's reserved unit waiting to be persisted, and
// the end of its persist bound (reservePersistTimeout).
type reservedOrder struct {
	cs       criticalSection
	deadline time.Time
	// values is the buyer's ctx without its cancellation: the batch's
	// transaction runs with its first buyer's values (a trace, a
	// statement counter), as that buyer's own would have.
	values context.Context
}

// newGroupCommit is the Gatherer that persists reserved units in batches.
func (s *Service) newGroupCommit() *gather.Gatherer[uint64, reservedOrder, inventory.Order] {
	return &gather.Gatherer[uint64, reservedOrder, inventory.Order]{MaxBatch: s.cfg.ReservedBatch,
		MaxWait: s.cfg.ReservedBatchWait, Run: s.persistReservedBatch}
}

// persistReserved persists one reserved unit (cs, writeReserved) within
// pctx, the buyer's persist bound: the buyer's business work first, side by
// side with the others' (it needs no lock), then the write in a batch of
// the sale's units gathered on this replica.
func (s *Service) persistReserved(pctx context.Context, cs criticalSection) (inventory.Order, error) {
	if cs.sale.WorkMS > 0 {
		if err := lockstrategy.Sleep(pctx, time.Duration(cs.sale.WorkMS)*time.Millisecond); err != nil {
			return inventory.Order{}, err
		}
		cs.sale.WorkMS = 0 // done: the batch (or a retry alone) must not work again
	}
	deadline, ok := pctx.Deadline()
	if !ok {
		deadline = time.Now().Add(reservePersistTimeout)
	}
	return s.commits.Do(pctx, cs.sale.ID, reservedOrder{cs: cs, deadline: deadline, values: context.WithoutCancel(pctx)})
}

// persistReservedBatch persists a batch of one sale's reserved units in one
// transaction, bounded by the earliest of their persist bounds (so each
// unit is an order within its own, as the stock's rebuild and the reclaim
// expect). If the batch's transaction fails as a whole (a deadlock, a
// duplicate key no check foresaw), each unit is persisted alone by the
// section, so one buyer's row cannot sink the others.
func (s *Service) persistReservedBatch(saleID uint64, batch []reservedOrder) []gather.Result[inventory.Order] {
	deadline := batch[0].deadline
	for _, r := range batch[1:] {
		if r.deadline.Before(deadline) {
			deadline = r.deadline
		}
	}
	ctx, cancel := context.WithDeadline(batch[0].values, deadline)
	defer cancel()
	results, err := commitReserved(ctx, s.store.DB(), batch)
	if err == nil {
		return results
	}
	results = make([]gather.Result[inventory.Order], len(batch))
	if ctx.Err() != nil {
		for i := range results {
			results[i].Err = fmt.Errorf("%w: %w", ErrPersistTimeout, err)
		}
		return results
	}
	s.log.Warn("a batch of reserved orders failed as a whole; persisting them one by one", "sale", saleID,
		"orders", len(batch), "err", err)
	for i, r := range batch {
		o, err := r.cs.inNewTx(ctx)
		if err != nil && ctx.Err() != nil && !errors.Is(err, ErrPersistTimeout) {
			err = fmt.Errorf("%w: %w", ErrPersistTimeout, err)
		}
		results[i] = gather.Result[inventory.Order]{Value: o, Err: err}
	}
	return results
}

// commitReserved writes a batch of one sale's reserved units in one
// transaction: it takes the sale's row (FOR UPDATE), decides each unit,
// then writes the stock once (stock - n where n are left) and the orders
// in one multi-row INSERT. Every order of a sale is inserted by a
// transaction that wrote (or locked) the sale's row first, so once the row
// is held every other order of the sale is committed, and the plain reads
// below (their snapshot taken after the lock) see them all: the counts are
// exact, as limitHeld's locking read is for one order, without its gap
// locks. Per unit, in the section's order of checks: a reclaimed ticket
// (ErrPersistTimeout: the reconciliation gave its unit back), the
// idempotency key (ErrDuplicateRequest, also within the batch), the
// per-user limit (ErrLimitReached, also within the batch), then the stock:
// a unit the database does not have is overdrawn (giveBack zeroes the
// store's stock). An error returned is the batch's: nothing was written.
func commitReserved(ctx context.Context, db *gorm.DB, batch []reservedOrder) ([]gather.Result[inventory.Order], error) {
	sale := batch[0].cs.sale
	results := make([]gather.Result[inventory.Order], len(batch))
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		stock, err := inventory.LockSaleStock(ctx, tx, sale.ID)
		if err != nil {
			return err
		}
		who := make([]inventory.Buyer, len(batch))
		for i, r := range batch {
			who[i] = inventory.Buyer{UserID: r.cs.userID, Ticket: r.cs.reserved.Ticket}
			if r.cs.idemKey != nil {
				who[i].Key = *r.cs.idemKey
			}
		}
		ledger, err := inventory.LoadLedger(ctx, tx, sale, who, stock, inventory.LedgerReads{Failed: true})
		if err != nil {
			return err
		}
		now := time.Now()
		var orders []inventory.Order
		var at []int // orders[j] is batch[at[j]]'s
		for i, r := range batch {
			if err := refuseReserved(ledger, who[i]); err != nil {
				results[i].Err = err
				continue
			}
			o := inventory.NewOrder(sale, r.cs.userID, r.cs.replica, now)
			o.IdempotencyKey = r.cs.idemKey
			ticket, accepted := r.cs.reserved.Ticket, r.cs.reserved.AcceptedAt
			o.OrderTicket, o.AcceptedAt = &ticket, &accepted
			orders, at = append(orders, o), append(at, i)
		}
		if len(orders) == 0 {
			return nil
		}
		if err := inventory.DecrementBy(ctx, tx, sale.ID, int64(len(orders))); err != nil {
			return err // fewer units than the row lock's read: not ours to explain, the batch fails
		}
		if err := inventory.InsertOrders(ctx, tx, orders); err != nil {
			return err
		}
		for j, i := range at {
			results[i].Value = orders[j]
		}
		return nil
	})
	return results, err
}

// refuseReserved says why a reserved unit makes no order, in the section's
// order of checks: its ticket reclaimed (ErrPersistTimeout: a
// reconciliation gave its unit back), then the ledger's (a repeated key,
// the limit); a unit the database does not have is overdrawn (giveBack
// zeroes the store's stock). nil: it makes one.
func refuseReserved(ledger *inventory.Ledger, who inventory.Buyer) error {
	if ledger.Failed(who.Ticket) != "" {
		return fmt.Errorf("%w: %w", ErrPersistTimeout, inventory.ErrTicketReclaimed)
	}
	err := refusal(ledger.Take(who))
	if errors.Is(err, ErrSoldOut) {
		return fmt.Errorf("%w: %w", errOverdrawn, inventory.ErrSoldOut)
	}
	return err
}
