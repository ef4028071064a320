package inventory

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// ReasonAbandoned is the ticket failure of a unit taken for a synchronous
// order whose replica died (or lost touch) before the order was a row: a
// reconciliation gave the unit back.
const ReasonAbandoned = "abandoned"

// ReasonStuck is the ticket failure of a queued order whose unit stayed in
// flight past reserved.QueuedStale (its entry lost, or failing for
// good): a repair gave the unit back.
const ReasonStuck = "stuck"

// ErrTicketReclaimed: the unit an order was persisting was reclaimed (given
// back) meanwhile: the order must not be made.
var ErrTicketReclaimed = errors.New("inventory: the order's unit was reclaimed while it was being persisted")

// CheckNotReclaimed is the last statement of a reserved order's
// transaction, after its stock write: it fails with ErrTicketReclaimed if
// ticket was reclaimed. Both this transaction and ReclaimTickets hold the
// sale's row (the write; the reclaim's FOR UPDATE), so one of them commits
// first, and the read here is a locking one, which sees the latest commit
// rather than this transaction's older snapshot: a reclaim that went first
// is seen, and one that comes after sees the order.
func CheckNotReclaimed(ctx context.Context, tx *gorm.DB, ticket string) error {
	var n int64
	if err := tx.WithContext(ctx).Raw("SELECT COUNT(*) FROM ticket_failures WHERE order_ticket = ? LOCK IN SHARE MODE", ticket).
		Scan(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return ErrTicketReclaimed
	}
	return nil
}

// ReclaimTickets decides, holding sale saleID's row, what becomes of
// tickets taken for synchronous orders that were never settled: those that
// are orders are kept (sold); the others are recorded as failed
// (with reason, once: a ticket failed before stays failed) and returned
// in giveBack, whose units the caller gives back in the store. Once this
// commits, no order of a giveBack ticket can commit (CheckNotReclaimed).
func ReclaimTickets(ctx context.Context, db *gorm.DB, saleID uint64, tickets []string, reason string) (sold, giveBack []string, err error) {
	err = db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		sold, giveBack = sold[:0], giveBack[:0]
		var id uint64
		if err := tx.Raw("SELECT id FROM sales WHERE id = ? FOR UPDATE", saleID).Scan(&id).Error; err != nil {
			return err
		}
		// The first plain read of the transaction, after the row lock: its
		// snapshot counts every order committed before we held the row.
		var orders []string
		if err := tx.Raw("SELECT order_ticket FROM orders WHERE order_ticket IN ?", tickets).Scan(&orders).Error; err != nil {
			return err
		}
		isOrder := make(map[string]bool, len(orders))
		for _, t := range orders {
			isOrder[t] = true
		}
		now := time.Now().UTC()
		var failures []TicketFailure
		for _, t := range tickets {
			if isOrder[t] {
				sold = append(sold, t)
				continue
			}
			giveBack = append(giveBack, t)
			failures = append(failures, TicketFailure{OrderTicket: t, SaleID: saleID, Reason: reason, FailedAt: now})
		}
		if len(failures) == 0 {
			return nil
		}
		return tx.Clauses(clause.Insert{Modifier: "IGNORE"}).Create(&failures).Error
	})
	return sold, giveBack, err
}
