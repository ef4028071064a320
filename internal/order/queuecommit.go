package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// QueueCommit is the queued road's transaction, the Persist of the
// consumer named consumer (its orders' replica): it decides every entry
// and writes the orders, the failures and the stock in one transaction
// holding the sale's row, so consumers of one sale take turns and each
// sees what the previous committed. faults strike at
// faultpoint.BeforeConsumerCommit, just before the commit.
func QueueCommit(store *inventory.Store, consumer string, faults faultpoint.Hooks) orderqueue.PersistFunc {
	q := queueCommit{store: store, consumer: consumer, faults: faults}
	return q.commit
}

type queueCommit struct {
	store    *inventory.Store
	consumer string
	faults   faultpoint.Hooks
}

// commit is an orderqueue.PersistFunc: refused, when not nil, is the
// database's refusal of these entries' rows: each that would have been an
// order fails with ReasonRefused instead.
func (q queueCommit) commit(ctx context.Context, sale inventory.Sale, es []orderqueue.Entry,
	refused error) ([]orderqueue.Settlement, error) {
	var res []orderqueue.Settlement
	err := q.store.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res = res[:0]
		stock, err := inventory.LockSaleStock(ctx, tx, sale.ID)
		if err != nil {
			return err
		}
		ledger, err := inventory.LoadLedger(ctx, tx, sale, queuedBuyers(es), stock,
			inventory.LedgerReads{Confirmed: true, Failed: true})
		if err != nil {
			return err
		}
		now := time.Now()
		var orders []inventory.Order
		var failures []inventory.TicketFailure
		for _, e := range es {
			s := decideQueued(ledger, e)
			if refused != nil && s.Fresh && s.Reason == "" {
				ledger.GiveBack(queuedBuyer(e))
				s = queuedFailure(e, orderqueue.ReasonRefused, true)
			}
			res = append(res, s)
			switch {
			case !s.Fresh:
			case s.Reason != "":
				failures = append(failures, queuedFailureRow(sale, s, now))
			default:
				orders = append(orders, q.orderRow(sale, e, now))
			}
		}
		if err := writeQueued(ctx, tx, sale, orders, failures); err != nil {
			return err
		}
		faultpoint.Consumer(q.faults, faultpoint.BeforeConsumerCommit)
		return nil
	})
	return res, err
}

// writeQueued writes a batch's stock (once, minus its orders), its orders
// and its failures inside tx.
func writeQueued(ctx context.Context, tx *gorm.DB, sale inventory.Sale, orders []inventory.Order,
	failures []inventory.TicketFailure) error {
	if n := len(orders); n > 0 {
		if err := inventory.DecrementBy(ctx, tx, sale.ID, int64(n)); errors.Is(err, inventory.ErrSoldOut) {
			return fmt.Errorf("order: sale %d has fewer than %d units under its row lock", sale.ID, n)
		} else if err != nil {
			return err
		}
		if err := inventory.InsertQueuedOrders(ctx, tx, orders); err != nil {
			return err
		}
	}
	return inventory.InsertTicketFailures(ctx, tx, failures)
}

// orderRow is the order confirmed entry e makes.
func (q queueCommit) orderRow(sale inventory.Sale, e orderqueue.Entry, now time.Time) inventory.Order {
	o := inventory.NewOrder(sale, e.UserID, q.consumer, now)
	ticket, accepted := e.Ticket, e.AcceptedAt
	o.OrderTicket, o.AcceptedAt = &ticket, &accepted
	if e.IdempotencyKey != "" {
		key := e.IdempotencyKey
		o.IdempotencyKey = &key
	}
	o.CreatedAt = now.Truncate(time.Microsecond)
	return o
}

// queuedFailureRow is the failure of a ticket that made no order.
func queuedFailureRow(sale inventory.Sale, s orderqueue.Settlement, now time.Time) inventory.TicketFailure {
	accepted := s.Entry.AcceptedAt
	return inventory.TicketFailure{OrderTicket: s.Entry.Ticket, SaleID: sale.ID,
		UserID: buyer.Storable(s.Entry.UserID), Reason: s.Reason, AcceptedAt: &accepted, FailedAt: now.UTC()}
}

// queuedBuyers is the ledger's view of a batch's entries.
func queuedBuyers(es []orderqueue.Entry) []inventory.Buyer {
	bs := make([]inventory.Buyer, len(es))
	for i, e := range es {
		bs[i] = queuedBuyer(e)
	}
	return bs
}

func queuedBuyer(e orderqueue.Entry) inventory.Buyer {
	return inventory.Buyer{UserID: e.UserID, Key: e.IdempotencyKey, Ticket: e.Ticket}
}

// decideQueued settles e: a ticket settled before keeps its outcome; else
// the buyer must be valid, then the ledger decides (the idempotency key,
// the buyer's limit and the stock, in that order).
func decideQueued(ledger *inventory.Ledger, e orderqueue.Entry) orderqueue.Settlement {
	confirmed, failed := ledger.Settle(e.Ticket)
	switch {
	case confirmed:
		return orderqueue.Settlement{Entry: e, How: redisstock.SettleKeep}
	case failed != "":
		return queuedFailure(e, failed, false)
	}
	if buyer.Check(e.UserID, e.IdempotencyKey) != nil {
		return queuedFailure(e, orderqueue.ReasonInvalidBuyer, true)
	}
	switch err := ledger.Take(queuedBuyer(e)); {
	case errors.Is(err, inventory.ErrKeyUsed):
		return queuedFailure(e, orderqueue.ReasonDuplicate, true)
	case errors.Is(err, inventory.ErrLimitReached):
		return queuedFailure(e, orderqueue.ReasonLimit, true)
	case errors.Is(err, inventory.ErrSoldOut):
		return queuedFailure(e, orderqueue.ReasonSoldOut, true)
	}
	return orderqueue.Settlement{Entry: e, How: redisstock.SettleKeep, Fresh: true}
}

// queuedFailure is e failing for reason: its unit goes back, or the stock
// in Redis is zeroed when the database had none.
func queuedFailure(e orderqueue.Entry, reason string, fresh bool) orderqueue.Settlement {
	how := redisstock.SettleGiveBack
	if reason == orderqueue.ReasonSoldOut {
		how = redisstock.SettleZero
	}
	return orderqueue.Settlement{Entry: e, How: how, Reason: reason, Fresh: fresh}
}
