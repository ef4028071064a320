package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/verdict"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// chaosConfig is one strategy with or without fencing, and its sales.
type chaosConfig struct {
	Strategy string
	Fencing  bool
	// MustHold: the invariants are asserted, not only counted: fenced
	// lock strategies and the ones whose safety does not rest on a lease
	// outliving its holder (lock-free, db-pessimistic).
	MustHold bool
	// Async: orders go through the queue (202 and a ticket);
	// PayWithinMS > 0: each order is a reservation to pay before it expires.
	Async       bool
	PayWithinMS int
	// RedisLock: the lock runs scripts on the replicas' default Redis
	// (drop_reply loses one of their replies).
	RedisLock bool
	// StoreStock: buyers are served from a stock kept in Redis
	// (redis-lua-stock), whose units must all come back to it or be sold.
	StoreStock bool
	// Combine: the sale sells the orders waiting for its lock as batches.
	Combine bool

	create  sync.Mutex // held while a sold-out sale is replaced
	mu      sync.Mutex
	current uint64 // the sale buyers order from now
	sales   []uint64
	ledger  map[uint64]map[string]*userLedger  // sale -> user -> answers
	kinds   map[string]int64                   // answer kinds, for the table
	hist    *hdrhistogram.Histogram            // latency of every answer, µs
	tickets map[uint64]map[string]ticketRecord // async: sale -> ticket -> its 202
	// badBuyers counts orders and tickets given to ids buyer.CheckID
	// refuses (lookalikes of a pool user): each is a defect.
	badBuyers int64
}

// countBadBuyer notes an order or ticket given to an id the buyer rule
// refuses.
func (c *chaosConfig) countBadBuyer() {
	c.mu.Lock()
	c.badBuyers++
	c.mu.Unlock()
}

func (c *chaosConfig) name() string {
	switch {
	case c.Async && c.PayWithinMS > 0:
		return c.Strategy + "/async+pay"
	case c.Async:
		return c.Strategy + "/async"
	case c.Fencing && c.Combine:
		return c.Strategy + "+fencing+combine"
	case c.Fencing:
		return c.Strategy + "+fencing"
	case c.Combine:
		return c.Strategy + "+combine"
	}
	return c.Strategy
}

// userLedger is one user's answers on one sale.
type userLedger struct {
	acked   map[uint64]bool // order ids answered 201
	unknown int             // requests without a definite answer
}

// record notes one answer.
func (c *chaosConfig) record(sale uint64, user string, ack int, orderID uint64, kind string, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ledger[sale] == nil {
		c.ledger[sale] = map[string]*userLedger{}
	}
	u := c.ledger[sale][user]
	if u == nil {
		u = &userLedger{acked: map[uint64]bool{}}
		c.ledger[sale][user] = u
	}
	switch ack {
	case shopapi.AckOrder:
		u.acked[orderID] = true
	case shopapi.AckUnknown:
		u.unknown++
	}
	c.kinds[kind]++
	_ = c.hist.RecordValue(max(took.Microseconds(), 1))
}

// chaosVerdict is what the database says about one configuration's sales.
type chaosVerdict struct {
	Sales, Sold                                   int64
	Oversold, LostUpdates, Duplicates             int64
	Missing, Phantom                              int64 // a 201 without its row; a row nobody was promised or left unsure
	Violations, FencedWrites, Unknown, StoreDrift int64
	// Stuck: units neither sold nor sellable once the sales settled (an
	// undersell, a failure like an oversell); StuckSales says where.
	// Reclaimed: units a dead replica left in flight that a reconciliation
	// settled; Repaired: drift repaired after a non-durable Redis restart.
	Stuck, Reclaimed, Repaired int64
	StuckSales                 []string
	// BadBuyers: orders or tickets given to an id the buyer rule refuses
	// (a lookalike of a pool user).
	BadBuyers int64
	Queue     *ticketVerdict // async configurations only
	// Histories counts the sales by the shop's linearizability verdict
	// (history.go); shown, not asserted.
	Histories map[string]int
}

// addSale adds sale id's figures, as the database counts them, to v.
func (v *chaosVerdict) addSale(ctx context.Context, store *inventory.Store, id uint64) (inventory.Sale, error) {
	sale, err := store.GetSale(ctx, id)
	if err != nil {
		return sale, fmt.Errorf("sale %d: %w", id, err)
	}
	view, err := store.View(ctx, sale)
	if err != nil {
		return sale, fmt.Errorf("sale %d: %w", id, err)
	}
	v.Sales++
	v.Sold += view.Sold
	v.Oversold += view.Oversold
	v.LostUpdates += view.LostUpdates
	v.Duplicates += view.Duplicates
	v.Violations += view.Violations
	return sale, nil
}

// data is the shop's verdict (internal/verdict) on the configuration's
// figures summed over its sales.
func (v chaosVerdict) data() verdict.Verdict {
	return verdict.Of(verdict.Figures{Oversold: v.Oversold, LostUpdates: v.LostUpdates, Duplicates: v.Duplicates,
		Violations: v.Violations, FencedWrites: v.FencedWrites})
}

// broken lists the invariants that do not hold (empty: all hold).
func (v chaosVerdict) broken() []string {
	var out []string
	add := func(name string, n int64) {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s %d", name, n))
		}
	}
	add("oversold", v.Oversold)
	add("lost updates", v.LostUpdates)
	add("duplicates", v.Duplicates)
	add("201 without order", v.Missing)
	add("order without 201", v.Phantom)
	add("units stuck", v.Stuck)
	add("lookalike ids sold to", v.BadBuyers)
	if v.Queue != nil {
		out = append(out, v.Queue.broken()...)
	}
	return out
}

// check reads every sale of c from the database and compares it with what
// the buyers were told.
func (c *chaosConfig) check(ctx context.Context, store *inventory.Store) (chaosVerdict, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := chaosVerdict{BadBuyers: c.badBuyers}
	for _, id := range c.sales {
		sale, err := v.addSale(ctx, store, id)
		if err != nil {
			return v, err
		}
		v.FencedWrites += sale.FencedWrites
		rows, err := inventory.SaleOrders(ctx, store.DB(), id)
		if err != nil {
			return v, fmt.Errorf("sale %d orders: %w", id, err)
		}
		byUser := map[string][]uint64{}
		found := map[uint64]bool{}
		for _, o := range rows {
			byUser[o.UserID] = append(byUser[o.UserID], o.ID)
			found[o.ID] = true
		}
		users := c.ledger[id]
		for _, u := range users {
			v.Unknown += int64(u.unknown)
			for oid := range u.acked {
				if !found[oid] {
					v.Missing++
				}
			}
		}
		for user, ids := range byUser {
			u := users[user]
			if u == nil {
				v.Phantom += int64(len(ids))
				continue
			}
			var unpromised int64
			for _, oid := range ids {
				if !u.acked[oid] {
					unpromised++
				}
			}
			v.Phantom += max(0, unpromised-int64(u.unknown))
		}
	}
	return v, nil
}

// storeDrift sums |store stock - database stock| over c's sales, as the
// replicas report it (redis-lua-stock keeps its stock in Redis).
func (c *chaosConfig) storeDrift(ctx context.Context, cl *shopapi.Client, targets []string) (int64, error) {
	c.mu.Lock()
	sales := append([]uint64(nil), c.sales...)
	c.mu.Unlock()
	var drift int64
	for _, id := range sales {
		v, _, err := cl.SettledSale(ctx, targets, id)
		if err != nil {
			return 0, err
		}
		// -1: the store lost it (a Redis restart); the next order rebuilds it.
		if v.StoreStock != nil && *v.StoreStock >= 0 {
			d := *v.StoreStock - v.Stock
			drift += max(d, -d)
		}
	}
	return drift, nil
}

// errNoSale: a configuration could not open a sale (its strategy refused).
var errNoSale = errors.New("no sale")
