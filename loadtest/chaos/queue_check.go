package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// ticketVerdict is what the checker found about a configuration's tickets,
// beside the database's usual figures (chaosVerdict holds it).
type ticketVerdict struct {
	Accepted, Confirmed, Failed int64
	Lost                        int64            // 404 tickets a non-durable restart excuses
	LostBy                      map[string]int64 // mode of the excusing restart -> lost tickets
	LostDurable                 int64            // 404 tickets no non-durable restart excuses: broken
	Pending                     int64            // tickets still pending once the queue drained
	NoTicket                    int64            // async orders without a ticket
	TwoOrders                   int64            // orders beyond the first of a ticket
	PaidLate                    int64            // orders paid after their pay-by
	Drift                       int64            // |drift| of the reconciliation, summed over the sales
	StockLost                   int64            // sales whose Redis stock was lost at the end: no drift to compute
	StockApart                  int64            // |Redis stock - database stock| once settled, summed over the sales
	// Repaired is the |drift| the reconciliation found after a non-durable
	// restart (Redis lost its last writes: a measured loss, like a lost
	// ticket) and its repair fixed; Drift and StockApart are judged after it.
	Repaired int64
	Apart    []string // the sales apart: id, both stocks, the reconciliation's terms
}

// broken lists the queue's invariants that do not hold.
func (q ticketVerdict) broken() []string {
	var out []string
	add := func(name string, n int64) {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s %d", name, n))
		}
	}
	add("202 lost with always", q.LostDurable)
	add("202 never settled", q.Pending)
	add("order without ticket", q.NoTicket)
	add("ticket with two orders", q.TwoOrders)
	add("paid after expiry", q.PaidLate)
	add("drift", q.Drift)
	add("Redis and database stocks apart by", q.StockApart)
	return out
}

// judgeTickets counts the tickets' final states; a lost one is excused
// only by a non-durable restart that ended after its request was sent.
func judgeTickets(tickets map[string]ticketRecord, states map[string]string, restarts []redisRestartRecord, q *ticketVerdict) {
	if q.LostBy == nil {
		q.LostBy = map[string]int64{}
	}
	for tk, rec := range tickets {
		q.Accepted++
		switch states[tk] {
		case shopapi.TicketConfirmed:
			q.Confirmed++
		case shopapi.TicketFailed:
			q.Failed++
		case shopapi.TicketLost:
			if mode, ok := lossExcuse(rec.sent, restarts); ok {
				q.Lost++
				q.LostBy[mode]++
			} else {
				q.LostDurable++
			}
		default: // pending, or never read
			q.Pending++
		}
	}
}

// orderTicketRow is one async order as the checker reads it.
type orderTicketRow = inventory.TicketOrder

// judgeOrders applies the database rules to a sale's orders: every order
// has a ticket, no ticket has two, none was paid late, and an order whose
// ticket no buyer was given is explained by that user's unsure answers. It
// returns the orders nobody was promised.
func judgeOrders(rows []orderTicketRow, tickets map[string]ticketRecord, users map[string]*userLedger, q *ticketVerdict) (phantom int64) {
	seen := map[string]bool{}
	unpromised := map[string]int64{}
	for _, o := range rows {
		if o.Late {
			q.PaidLate++
		}
		if o.OrderTicket == nil {
			q.NoTicket++
			continue
		}
		if seen[*o.OrderTicket] {
			q.TwoOrders++
			continue
		}
		seen[*o.OrderTicket] = true
		if _, ok := tickets[*o.OrderTicket]; !ok {
			unpromised[o.UserID]++
		}
	}
	for user, n := range unpromised {
		var unsure int64
		if u := users[user]; u != nil {
			unsure = int64(u.unknown)
		}
		phantom += max(0, n-unsure)
	}
	return phantom
}

// checkQueue judges an async configuration: the database's figures as for
// every configuration, every ticket's end, the orders' tickets and the
// reconciliation's drift once the queue has drained.
func (c *chaosConfig) checkQueue(ctx context.Context, store *inventory.Store, cl *shopapi.Client, targets []string, restarts []redisRestartRecord) (chaosVerdict, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v chaosVerdict
	v.Queue = &ticketVerdict{LostBy: map[string]int64{}}
	var all []string
	for _, ts := range c.tickets {
		for tk := range ts {
			all = append(all, tk)
		}
	}
	states, err := load.SettleStates(ctx, cl, targets, all)
	if err != nil {
		return v, err
	}
	for _, id := range c.sales {
		if _, err := v.addSale(ctx, store, id); err != nil {
			return v, err
		}
		for _, u := range c.ledger[id] {
			v.Unknown += int64(u.unknown)
		}
		judgeTickets(c.tickets[id], states, restarts, v.Queue)
		rows, err := inventory.TicketOrders(ctx, store.DB(), id)
		if err != nil {
			return v, fmt.Errorf("sale %d orders: %w", id, err)
		}
		v.Phantom += judgeOrders(rows, c.tickets[id], c.ledger[id], v.Queue)
		rec, err := settledReconcile(ctx, cl, store, targets, id)
		if err != nil {
			return v, fmt.Errorf("sale %d reconcile: %w", id, err)
		}
		if (rec.Drift != 0 || stockApart(rec) > 0 || rec.StoreStock < 0) && anyLossy(restarts) {
			// Redis may have lost its last writes: the drift is a measured
			// loss. The repair must make the stocks agree.
			ans, err := cl.Repair(ctx, targets[0], id)
			if err != nil {
				return v, fmt.Errorf("sale %d repair: %w", id, err)
			}
			v.Queue.Repaired += max(rec.Drift, -rec.Drift)
			v.Queue.Apart = append(v.Queue.Apart, fmt.Sprintf("sale %d: repaired after a non-durable restart: Redis %d, database %d, drift %d -> Redis %d, drift %d",
				id, rec.StoreStock, rec.DBStock, rec.Drift, ans.After.StoreStock, ans.After.Drift))
			rec = ans.After
		}
		v.Queue.Drift += max(rec.Drift, -rec.Drift)
		if n := stockApart(rec); n > 0 {
			v.Queue.StockApart += n
			// Best effort: these only explain the figure (0 if unread).
			expired, _ := inventory.CountExpired(ctx, store.DB(), id)
			soldOutFails, _ := inventory.CountFailed(ctx, store.DB(), id, "sold_out")
			v.Queue.Apart = append(v.Queue.Apart, fmt.Sprintf("sale %d: Redis %d, database %d, expired_unreturned %d, lost_returns %d, drift %d; expired %d, tickets failed sold out %d",
				id, rec.StoreStock, rec.DBStock, rec.ExpiredUnreturned, rec.LostReturns, rec.Drift, expired, soldOutFails))
		}
		if rec.StoreStock < 0 {
			v.Queue.StockLost++
		}
	}
	return v, nil
}

// anyLossy says a restart in a mode that may lose acknowledged writes
// (none; everysec, when a background fsync is slow) happened.
func anyLossy(restarts []redisRestartRecord) bool {
	for _, r := range restarts {
		if r.Mode != "always" {
			return true
		}
	}
	return false
}

// stockApart is how far a settled sale's Redis stock is from its database
// stock: once nothing is in flight they must be equal, whatever the
// reconciliation's sum says (0 when Redis lost its stock: nothing to
// compare).
func stockApart(rec shopapi.ReconcileView) int64 {
	if rec.StoreStock < 0 || rec.InFlight != 0 {
		return 0
	}
	d := rec.StoreStock - rec.DBStock
	return max(d, -d)
}

// settledReconcile reads the sale's reconciliation once nothing is in
// flight, no reservation is past due by more than a second on the
// database's clock (the expiry job runs every half second) and every
// expired unit is back in Redis (unit_returned), 30 s at most:
// the drift is judged then. (expired_unreturned is no such condition: it
// is the database's expired count against a Redis counter that a restart
// without persistence resets, part of the drift's sum, not a wait.)
func settledReconcile(ctx context.Context, cl *shopapi.Client, store *inventory.Store, targets []string, id uint64) (shopapi.ReconcileView, error) {
	deadline := time.Now().Add(30 * time.Second)
	var lastErr error
	for i := 0; ; i++ {
		// reservations past due, and expired units not yet back in Redis
		due, err := inventory.CountUnsettled(ctx, store.DB(), id)
		if err != nil {
			return shopapi.ReconcileView{}, err
		}
		rec, err := cl.Reconcile(ctx, targets[i%len(targets)], id)
		if err == nil && rec.InFlight == 0 && due == 0 {
			return rec, nil
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(deadline) {
			if err == nil {
				return rec, nil // judged as it is: in flight for ever is drift too
			}
			return rec, lastErr
		}
		load.Sleep(ctx, 200*time.Millisecond)
	}
}
