package orderqueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
)

// Reasons a ticket fails.
const (
	ReasonSoldOut   = "sold_out"          // the database had no unit: Redis's stock was above the truth
	ReasonLimit     = "limit_reached"     // the buyer's limit, checked again in the database
	ReasonDuplicate = "duplicate_request" // the idempotency key made an order already
	// ReasonInvalidBuyer: the entry's user id or key breaks buyer.Check (an
	// entry queued before the rule): it would be another buyer's to the
	// database.
	ReasonInvalidBuyer = "invalid_buyer"
	// ReasonRefused: the database refused this order's row (dberr.IsRowRefused)
	// when it was written alone: the rest of its batch went through.
	ReasonRefused = "refused"
)

// settlement is what becomes of one entry.
type settlement struct {
	e      entry
	how    int    // redisstock.SettleKeep / SettleGiveBack / SettleZero
	reason string // "" when confirmed
	fresh  bool   // settled by this batch (not a redelivery of a settled one)
}

// settleScript settles a sale's entries in Redis in one step and
// acknowledges them: each ticket still in flight leaves it, its unit going
// back (1) or the stock zeroed (2) as decided; then the entries are acked
// and deleted from the stream. A redelivered entry finds its ticket gone
// and changes nothing: the unit goes back once. The kept tickets leave in
// one HDEL, the entries in one XACK and one XDEL.
// KEYS: stock, in flight, stream. ARGV: group, n, n x (ticket, how), ids...
var settleScript = redis.NewScript(`
local n = tonumber(ARGV[2])
local back = 0
local stock = redis.call('EXISTS', KEYS[1]) == 1
local kept, ids = {}, {}
for i = 0, n - 1 do
  local t, how = ARGV[3 + 2 * i], ARGV[4 + 2 * i]
  if how == '0' then kept[#kept + 1] = t
  elseif redis.call('HDEL', KEYS[2], t) == 1 and stock then
    if how == '1' then redis.call('INCR', KEYS[1]); back = back + 1 end
    if how == '2' then redis.call('SET', KEYS[1], 0) end
  end
end
if #kept > 0 then redis.call('HDEL', KEYS[2], unpack(kept)) end
for i = 3 + 2 * n, #ARGV do ids[#ids + 1] = ARGV[i] end
if #ids > 0 then
  redis.call('XACK', KEYS[3], ARGV[1], unpack(ids))
  redis.call('XDEL', KEYS[3], unpack(ids))
end
return back
`)

// persistSale persists one sale's entries: the simulated work, then one
// transaction for all of them, then the settlement in Redis. A batch whose
// transaction fails is written again one entry at a time (persistEach): a
// row the database refuses fails its own ticket only, and a failure that
// may pass later leaves that entry and the ones after it pending, retried
// when they are reclaimed.
func (c *Consumer) persistSale(ctx context.Context, saleID uint64, es []entry) error {
	sale, err := c.store.GetSale(ctx, saleID)
	if err != nil {
		return fmt.Errorf("reading sale %d: %w", saleID, err)
	}
	// The business work of each order. It needs no lock in this mode, so
	// the orders of a batch do theirs side by side: one work_ms per batch.
	if sale.WorkMS > 0 {
		if err := lockstrategy.Sleep(ctx, time.Duration(sale.WorkMS)*time.Millisecond); err != nil {
			return err
		}
	}
	var res []settlement
	for attempt := 0; ; attempt++ {
		res, err = c.commit(ctx, sale, es, nil)
		// Another consumer persisted some of these (a reclaimed entry whose
		// first consumer was slow, not dead): the next try sees them.
		if err == nil || !dberr.IsDuplicate(err) || attempt == 2 {
			break
		}
	}
	if err != nil && ctx.Err() == nil {
		res, err = c.persistEach(ctx, sale, es, err)
	}
	if len(res) == 0 {
		return err
	}
	faultpoint.Consumer(c.cfg.Faults, faultpoint.AfterConsumerCommit)
	return errors.Join(err, c.settle(ctx, sale, res))
}

// persistEach commits es one entry at a time, after their batch failed
// with batchErr. An entry whose row the database refuses fails alone
// (ReasonRefused, its unit given back); the first entry that fails
// otherwise (the database away, a timeout) stops the pass: it and the
// entries after it stay pending. It returns the settlements made.
func (c *Consumer) persistEach(ctx context.Context, sale inventory.Sale, es []entry, batchErr error) ([]settlement, error) {
	var res []settlement
	for i := range es {
		one, err := c.commit(ctx, sale, es[i:i+1], nil)
		if err != nil && dberr.IsRowRefused(err) {
			c.log.Warn("the database refused a queued order's row; its ticket fails alone", "sale", sale.ID,
				"ticket", es[i].ticket, "err", err)
			one, err = c.commit(ctx, sale, es[i:i+1], err)
		}
		if err != nil {
			return res, fmt.Errorf("%d of %d entries left pending (the batch: %v): %w", len(es)-i, len(es), batchErr, err)
		}
		res = append(res, one...)
	}
	return res, nil
}

// commit decides every entry and writes the orders, the failures and the
// stock in one transaction, holding the sale's row: consumers of one sale
// take turns, and each sees what the previous committed. refused, when not
// nil, is the database's refusal of these entries' rows: each that would
// have been an order fails with ReasonRefused instead.
func (c *Consumer) commit(ctx context.Context, sale inventory.Sale, es []entry, refused error) ([]settlement, error) {
	pctx, cancel := context.WithTimeout(ctx, c.cfg.PersistTimeout)
	defer cancel()
	var res []settlement
	err := c.store.DB().WithContext(pctx).Transaction(func(tx *gorm.DB) error {
		res = res[:0]
		stock, err := inventory.LockSaleStock(pctx, tx, sale.ID)
		if err != nil {
			return err
		}
		ledger, err := inventory.LoadLedger(pctx, tx, sale, buyersOf(es), stock,
			inventory.LedgerReads{Confirmed: true, Failed: true})
		if err != nil {
			return err
		}
		now := time.Now()
		var orders []inventory.Order
		var failures []inventory.TicketFailure
		for _, e := range es {
			s := decide(ledger, e)
			if refused != nil && s.fresh && s.reason == "" {
				ledger.GiveBack(buyerOf(e))
				s = failure(e, ReasonRefused, true)
			}
			res = append(res, s)
			switch {
			case !s.fresh:
			case s.reason != "":
				failures = append(failures, c.failureRow(sale, s, now))
			default:
				orders = append(orders, c.orderRow(sale, e, now))
			}
		}
		if err := c.write(pctx, tx, sale, orders, failures); err != nil {
			return err
		}
		faultpoint.Consumer(c.cfg.Faults, faultpoint.BeforeConsumerCommit)
		return nil
	})
	return res, err
}

// write writes a batch's stock (once, minus its orders), its orders and
// its failures inside tx.
func (c *Consumer) write(ctx context.Context, tx *gorm.DB, sale inventory.Sale, orders []inventory.Order,
	failures []inventory.TicketFailure) error {
	if n := len(orders); n > 0 {
		if err := inventory.DecrementBy(ctx, tx, sale.ID, int64(n)); errors.Is(err, inventory.ErrSoldOut) {
			return fmt.Errorf("orderqueue: sale %d has fewer than %d units under its row lock", sale.ID, n)
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
func (c *Consumer) orderRow(sale inventory.Sale, e entry, now time.Time) inventory.Order {
	o := inventory.NewOrder(sale, e.userID, c.cfg.Name, now)
	ticket, accepted := e.ticket, e.accepted
	o.OrderTicket, o.AcceptedAt = &ticket, &accepted
	if e.idemKey != "" {
		key := e.idemKey
		o.IdempotencyKey = &key
	}
	o.CreatedAt = now.Truncate(time.Microsecond)
	return o
}

// failureRow is the failure of a ticket that made no order.
func (c *Consumer) failureRow(sale inventory.Sale, s settlement, now time.Time) inventory.TicketFailure {
	accepted := s.e.accepted
	return inventory.TicketFailure{OrderTicket: s.e.ticket, SaleID: sale.ID,
		UserID: buyer.Storable(s.e.userID), Reason: s.reason, AcceptedAt: &accepted, FailedAt: now.UTC()}
}

// buyersOf is the ledger's view of a batch's entries.
func buyersOf(es []entry) []inventory.Buyer {
	bs := make([]inventory.Buyer, len(es))
	for i, e := range es {
		bs[i] = buyerOf(e)
	}
	return bs
}

func buyerOf(e entry) inventory.Buyer {
	return inventory.Buyer{UserID: e.userID, Key: e.idemKey, Ticket: e.ticket}
}

// decide settles e: a ticket settled before keeps its outcome; else the
// buyer must be valid, then the ledger decides (the idempotency key, the
// buyer's limit and the stock, in that order).
func decide(ledger *inventory.Ledger, e entry) settlement {
	confirmed, failed := ledger.Settle(e.ticket)
	switch {
	case confirmed:
		return settlement{e: e, how: redisstock.SettleKeep}
	case failed != "":
		return failure(e, failed, false)
	}
	if buyer.Check(e.userID, e.idemKey) != nil {
		return failure(e, ReasonInvalidBuyer, true)
	}
	switch err := ledger.Take(buyerOf(e)); {
	case errors.Is(err, inventory.ErrKeyUsed):
		return failure(e, ReasonDuplicate, true)
	case errors.Is(err, inventory.ErrLimitReached):
		return failure(e, ReasonLimit, true)
	case errors.Is(err, inventory.ErrSoldOut):
		return failure(e, ReasonSoldOut, true)
	}
	return settlement{e: e, how: redisstock.SettleKeep, fresh: true}
}

func failure(e entry, reason string, fresh bool) settlement {
	how := redisstock.SettleGiveBack
	if reason == ReasonSoldOut {
		how = redisstock.SettleZero
	}
	return settlement{e: e, how: how, reason: reason, fresh: fresh}
}

// settle tells Redis what became of the entries, then the observer.
func (c *Consumer) settle(ctx context.Context, sale inventory.Sale, res []settlement) error {
	k := keysOf(c.cfg.SaleKey(sale.ID))
	args := []any{Group, len(res)}
	for _, s := range res {
		args = append(args, s.e.ticket, s.how)
	}
	for _, s := range res {
		args = append(args, s.e.id)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.PersistTimeout)
	defer cancel()
	back, err := settleScript.Run(sctx, c.rdb, []string{k.Stock, k.InFlight, c.stream}, args...).Int64()
	if err != nil {
		// Committed but not acknowledged: the entries are reclaimed and
		// find their tickets settled in the database.
		return fmt.Errorf("settling in Redis: %w", err)
	}
	if back > 0 && c.OnUnitsBack != nil {
		c.OnUnitsBack(sale.ID)
	}
	if c.obs != nil {
		committed := time.Now()
		for _, s := range res {
			switch {
			case !s.fresh:
			case s.reason == "":
				c.obs.ObserveConfirmed(sale.ID, s.e.accepted, committed)
			default:
				c.obs.ObserveFailed(sale.ID, s.reason)
			}
		}
	}
	return nil
}
