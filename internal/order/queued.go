package order

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// UseQueue turns the asynchronous order mode on for this replica: its
// async sales queue their orders on q.
func (s *Service) UseQueue(q *orderqueue.Queue) { s.queue = q }

// Queue is the replica's order queue; nil without one.
func (s *Service) Queue() *orderqueue.Queue { return s.queue }

// queuedRoad sells each order as a ticket: the unit taken and the order
// queued in Redis; the queue's consumer makes the order later.
type queuedRoad struct {
	s    *Service
	sale inventory.Sale
	rs   lockstrategy.Reserver // nil: the strategy keeps no stock to queue from
}

func (r queuedRoad) sell(ctx context.Context, p Purchase) (inventory.Order, figures, error) {
	if r.rs == nil || r.s.queue == nil {
		return inventory.Order{}, figures{layer: LayerQueue}, fmt.Errorf("%w: strategy %s on this replica", ErrNoQueue, r.sale.Strategy)
	}
	return r.s.placeQueued(ctx, r.sale, p, r.rs)
}

// placeQueued takes the unit and queues the order in one Redis script; the
// answer is a pending order carrying its ticket (the 202). The buyer's
// limit is checked there at once (and again by the consumer, in the
// database, in case Redis forgot it).
func (s *Service) placeQueued(ctx context.Context, sale inventory.Sale, p Purchase, rs lockstrategy.Reserver) (inventory.Order, figures, error) {
	key := s.LockKey(sale.ID)
	a, err := s.queue.Enqueue(ctx, orderqueue.Request{SaleID: sale.ID, SaleKey: key, UserID: p.UserID,
		IdempotencyKey: p.IdempotencyKey, PerUserLimit: sale.PerUserLimit})
	switch {
	case errors.Is(err, orderqueue.ErrSoldOut):
		return inventory.Order{}, figures{layer: LayerStore}, ErrSoldOut
	case errors.Is(err, orderqueue.ErrLimitReached):
		return inventory.Order{}, figures{layer: LayerStore}, ErrLimitReached
	case errors.Is(err, lockstrategy.ErrStockReloadClaimed):
		s.rebuildStock(sale.ID, key, rs)
		return inventory.Order{}, figures{layer: LayerStore}, err
	case acceptMayHaveRun(err):
		return inventory.Order{}, figures{layer: LayerStore}, fmt.Errorf("%w: %w", ErrAcceptUnknown, err)
	case err != nil:
		return inventory.Order{}, figures{layer: LayerStore}, asBackendDown(err)
	}
	o := inventory.Order{SaleID: sale.ID, UserID: p.UserID, Status: inventory.StatusPending, OrderTicket: &a.Ticket}
	if !a.AcceptedAt.IsZero() {
		o.AcceptedAt = &a.AcceptedAt
	}
	if a.Replayed {
		return o, figures{layer: LayerIdempotency}, nil
	}
	return o, figures{layer: LayerQueue}, nil
}

// acceptMayHaveRun says a failed accept may still have run in Redis: the
// script was sent and its reply lost (a timeout or a reset mid-call), as
// opposed to a request that never left (no connection, the pool empty) or
// one Redis refused (LOADING, READONLY...). Answering the first kind with
// backend_down told a buyer "no" for a unit its queued ticket then turned
// into an order.
func acceptMayHaveRun(err error) bool {
	if err == nil || !lockstrategy.IsTransport(err) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		return false // a reply came: Redis refused the call
	}
	var oe *net.OpError
	return !errors.As(err, &oe) || oe.Op != "dial"
}
