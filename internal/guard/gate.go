// Package guard is the flash sale's front door: "reject early, reject
// cheap". Before an order reaches the sale's lock and the database, Gate
// refuses what it can from memory or one Redis call: before the opening,
// without a valid purchase ticket, over a rate limit, and once the sale is
// known to be sold out. It also makes an Idempotency-Key's retry return the
// first answer. Every answer names the layer that gave it.
package guard

import (
	"context"
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
)

// The layers that answer before the order flow (which adds order.LayerLock,
// order.LayerDatabase and order.LayerStore).
const (
	LayerOpening      = "opening"
	LayerTicket       = "ticket"
	LayerRateLimit    = "rate_limit"
	LayerIdempotency  = "idempotency"
	LayerSoldOutCache = "sold_out_cache"
)

// Outcome names of the guards' refusals, for metrics.
const (
	OutcomeNotOpen        = "not_open"
	OutcomeTicketRequired = "ticket_required"
	OutcomeBadTicket      = "bad_ticket"
	OutcomeRateLimited    = "rate_limited"
	OutcomeReplayed       = "replayed"
)

// Request is one buyer's order as it arrives.
type Request struct {
	SaleID         uint64
	UserID         string
	ClientIP       string
	Ticket         string // a purchase ticket; "" for none
	IdempotencyKey string // "" for none
}

// Answer is a successful answer: the order, the layer that gave it, and
// whether it replays the order an earlier request with the same key made.
type Answer struct {
	Order    inventory.Order
	Layer    string
	Replayed bool
}

// Orders is the order flow behind the gate: order.Service.
type Orders interface {
	Sale(ctx context.Context, id uint64) (inventory.Sale, error)
	Buy(ctx context.Context, p order.Purchase) (inventory.Order, string, error)
	KeyedOrder(ctx context.Context, saleID uint64, userID, key string) (inventory.Order, bool, error)
}

// Gate runs the guards, then the order flow. Safe for concurrent use.
type Gate struct {
	orders  Orders
	tickets *Tickets
	limits  *Limiter
	soldOut *SoldOutCache
	rec     order.Recorder // nil: no figures
	now     func() time.Time
}

// NewGate returns a gate in front of orders; rec (may be nil) receives one
// observation per refusal the gate gives itself.
func NewGate(orders Orders, tickets *Tickets, limits *Limiter, soldOut *SoldOutCache, rec order.Recorder) *Gate {
	return &Gate{orders: orders, tickets: tickets, limits: limits, soldOut: soldOut, rec: rec, now: time.Now}
}

// Buy answers one order request. The error, when there is one, is a guard's
// refusal (*NotOpenError, ErrTicketRequired, ErrBadTicket,
// *RateLimitedError) or the order flow's; layer says which layer answered
// in both cases.
func (g *Gate) Buy(ctx context.Context, req Request) (a Answer, layer string, err error) {
	start := g.now()
	sale, err := g.orders.Sale(ctx, req.SaleID)
	if err != nil {
		return a, order.LayerDatabase, err
	}
	layer, err = g.refuse(ctx, sale, req, start)
	if err != nil {
		g.observe(sale, layer, err, start)
		return a, layer, err
	}
	// An async sale keeps its keys with its tickets in Redis: the queue's
	// script replays them itself.
	async := sale.OrderMode == inventory.OrderAsync
	if req.IdempotencyKey != "" && !async {
		if a, ok, err := g.replay(ctx, req); ok || err != nil {
			g.observe(sale, LayerIdempotency, err, start)
			return a, LayerIdempotency, err
		}
	}
	if sale.SoldOutCache && g.soldOut.Known(sale.ID) {
		g.observe(sale, LayerSoldOutCache, order.ErrSoldOut, start)
		return a, LayerSoldOutCache, order.ErrSoldOut
	}
	g.soldOut.Watch(sale.ID, sale.SoldOutCache)
	o, layer, err := g.orders.Buy(ctx, order.Purchase{SaleID: sale.ID, UserID: req.UserID, IdempotencyKey: req.IdempotencyKey})
	if err != nil && req.IdempotencyKey != "" && !async && retriedFirst(err) {
		// The first request with this key may have committed while this one
		// ran: its order is the answer, not a refusal.
		if a, ok, rerr := g.replay(ctx, req); ok || rerr != nil {
			return a, LayerIdempotency, rerr
		}
	}
	if errors.Is(err, order.ErrSoldOut) && sale.SoldOutCache {
		g.soldOut.Confirm(ctx, sale.ID)
	}
	return Answer{Order: o, Layer: layer, Replayed: layer == order.LayerIdempotency}, layer, err
}

// refuse runs the cheap guards in order: opening, ticket, rate limits.
func (g *Gate) refuse(ctx context.Context, sale inventory.Sale, req Request, now time.Time) (string, error) {
	if err := notOpen(sale, now); err != nil {
		return LayerOpening, err
	}
	if sale.TicketRequired {
		if err := g.tickets.Verify(req.Ticket, sale.ID, req.UserID); err != nil {
			return LayerTicket, err
		}
	}
	if err := g.limits.Check(ctx, sale, req.UserID, req.ClientIP); err != nil {
		return LayerRateLimit, err
	}
	return "", nil
}

// notOpen is a *NotOpenError before sale's opening, else nil.
func notOpen(sale inventory.Sale, now time.Time) error {
	if now.Before(sale.OpensAt) {
		return &NotOpenError{OpensAt: sale.OpensAt, Now: now}
	}
	return nil
}

// Ticket issues userID's purchase ticket for sale saleID once the sale is
// open (before: a *NotOpenError, as an order gets), and its expiry.
func (g *Gate) Ticket(ctx context.Context, saleID uint64, userID string) (string, time.Time, error) {
	sale, err := g.orders.Sale(ctx, saleID)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := notOpen(sale, g.now()); err != nil {
		return "", time.Time{}, err
	}
	ticket, exp := g.tickets.Issue(saleID, userID)
	return ticket, exp, nil
}

// replay finds the order req's key made; ok false when there is none.
func (g *Gate) replay(ctx context.Context, req Request) (Answer, bool, error) {
	o, ok, err := g.orders.KeyedOrder(ctx, req.SaleID, req.UserID, req.IdempotencyKey)
	return Answer{Order: o, Layer: LayerIdempotency, Replayed: ok}, ok, err
}

// retriedFirst: the refusals a retry meets because its first request
// succeeded (the unit it took, the user's limit it used, its key).
func retriedFirst(err error) bool {
	return errors.Is(err, order.ErrDuplicateRequest) || errors.Is(err, order.ErrLimitReached) ||
		errors.Is(err, order.ErrSoldOut)
}

// observe records a refusal the gate gave (or a replay) for the live
// figures and Prometheus: a request like any other, answered by layer.
func (g *Gate) observe(sale inventory.Sale, layer string, err error, start time.Time) {
	if g.rec == nil {
		return
	}
	g.rec.ObservePlace(order.Observation{SaleID: sale.ID, Strategy: sale.Strategy, Outcome: OutcomeOf(err),
		Arrived: start, Opening: sale.OpensAt, Total: g.now().Sub(start), Layer: layer})
}

// OutcomeOf names err's outcome: the guards' refusals, else the order
// flow's names.
func OutcomeOf(err error) string {
	var notOpen *NotOpenError
	var limited *RateLimitedError
	switch {
	case err == nil:
		return OutcomeReplayed // the gate answers successfully only by replaying
	case errors.As(err, &notOpen):
		return OutcomeNotOpen
	case errors.Is(err, ErrTicketRequired):
		return OutcomeTicketRequired
	case errors.Is(err, ErrBadTicket):
		return OutcomeBadTicket
	case errors.As(err, &limited):
		return OutcomeRateLimited
	}
	return order.OutcomeOf(err)
}
