package orderqueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
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

// Settlement is what becomes of one entry.
type Settlement struct {
	Entry  Entry
	How    int    // redisstock.SettleKeep / SettleGiveBack / SettleZero
	Reason string // "" when confirmed
	Fresh  bool   // settled by this batch (not a redelivery of a settled one)
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
func (c *Consumer) persistSale(ctx context.Context, saleID uint64, es []Entry) error {
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
	var res []Settlement
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
func (c *Consumer) persistEach(ctx context.Context, sale inventory.Sale, es []Entry, batchErr error) ([]Settlement, error) {
	var res []Settlement
	for i := range es {
		one, err := c.commit(ctx, sale, es[i:i+1], nil)
		if err != nil && dberr.IsRowRefused(err) {
			c.log.Warn("the database refused a queued order's row; its ticket fails alone", "sale", sale.ID,
				"ticket", es[i].Ticket, "err", err)
			one, err = c.commit(ctx, sale, es[i:i+1], err)
		}
		if err != nil {
			return res, fmt.Errorf("%d of %d entries left pending (the batch: %v): %w", len(es)-i, len(es), batchErr, err)
		}
		res = append(res, one...)
	}
	return res, nil
}

// commit runs the consumer's Persist on es within PersistTimeout.
func (c *Consumer) commit(ctx context.Context, sale inventory.Sale, es []Entry, refused error) ([]Settlement, error) {
	pctx, cancel := context.WithTimeout(ctx, c.cfg.PersistTimeout)
	defer cancel()
	return c.cfg.Persist(pctx, sale, es, refused)
}

// settle tells Redis what became of the entries, then the observer.
func (c *Consumer) settle(ctx context.Context, sale inventory.Sale, res []Settlement) error {
	k := keysOf(c.cfg.SaleKey(sale.ID))
	args := []any{Group, len(res)}
	for _, s := range res {
		args = append(args, s.Entry.Ticket, s.How)
	}
	for _, s := range res {
		args = append(args, s.Entry.id)
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
			case !s.Fresh:
			case s.Reason == "":
				c.obs.ObserveConfirmed(sale.ID, s.Entry.AcceptedAt, committed)
			default:
				c.obs.ObserveFailed(sale.ID, s.Reason)
			}
		}
	}
	return nil
}
