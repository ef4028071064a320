package orderqueue

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// Ticket states.
const (
	StatePending   = "pending"   // its unit is taken, its order not yet persisted
	StateConfirmed = "confirmed" // an order exists
	StateFailed    = "failed"    // no order will: Reason says why; its unit went back
)

// TicketState is what became of an order ticket.
type TicketState struct {
	Ticket string           `json:"order_ticket"`
	SaleID uint64           `json:"sale_id"`
	UserID string           `json:"user_id"`
	State  string           `json:"state"`
	Reason string           `json:"reason,omitempty"`
	Order  *inventory.Order `json:"order"`
}

// Lookup finds ticket: in the database (confirmed, failed), else in
// flight in Redis (pending). found false: never issued, or lost with a
// Redis that restarted without persistence.
func (q *Queue) Lookup(ctx context.Context, db *gorm.DB, saleKey func(uint64) string, ticket string) (TicketState, bool, error) {
	st, found, inRedis, err := q.lookup(ctx, db, saleKey, ticket)
	if err == nil && !found && inRedis {
		// Not in the database, then not in flight: the consumer may have
		// committed and settled it between the two reads. The database has
		// it now if so.
		st, found, _, err = q.lookup(ctx, db, saleKey, ticket)
	}
	return st, found, err
}

// lookup is one pass of Lookup; inRedis says it got as far as Redis.
func (q *Queue) lookup(ctx context.Context, db *gorm.DB, saleKey func(uint64) string, ticket string) (st TicketState, found, inRedis bool, err error) {
	st, found, err = q.lookupDB(ctx, db, ticket)
	if found || err != nil {
		return st, found, false, err
	}
	saleID, ok := SaleOfTicket(ticket)
	if !ok {
		return st, false, false, nil
	}
	entryID, err := q.rdb.HGet(ctx, keysOf(saleKey(saleID)).InFlight, ticket).Result()
	if errors.Is(err, redis.Nil) {
		return st, false, true, nil
	}
	if err != nil {
		return st, false, true, fmt.Errorf("orderqueue: looking up %s: %w", ticket, err)
	}
	st.SaleID, st.State = saleID, StatePending
	if msgs, err := q.rdb.XRange(ctx, q.stream, entryID, entryID).Result(); err == nil && len(msgs) == 1 {
		if e, ok := parse(msgs[0]); ok {
			st.UserID = e.UserID
		}
	}
	return st, true, true, nil
}

// lookupDB finds ticket's order or failure in the database.
func (q *Queue) lookupDB(ctx context.Context, db *gorm.DB, ticket string) (TicketState, bool, error) {
	st := TicketState{Ticket: ticket}
	o, err := inventory.OrderByTicket(ctx, db, ticket)
	switch {
	case err == nil:
		st.SaleID, st.UserID, st.State, st.Order = o.SaleID, o.UserID, StateConfirmed, &o
		return st, true, nil
	case !errors.Is(err, gorm.ErrRecordNotFound):
		return st, false, err
	}
	f, err := inventory.TicketFailureOf(ctx, db, ticket)
	switch {
	case err == nil:
		st.SaleID, st.UserID, st.State, st.Reason = f.SaleID, f.UserID, StateFailed, f.Reason
		return st, true, nil
	case !errors.Is(err, gorm.ErrRecordNotFound):
		return st, false, err
	}
	return st, false, nil
}

// SaleFigures are a sale's queue counters kept in Redis.
type SaleFigures struct {
	Accepted int64 // 202s given (lost with a Redis that restarts without persistence)
	InFlight int64 // tickets not yet settled
}

// Figures reads sale's counters.
func (q *Queue) Figures(ctx context.Context, saleKey string) (SaleFigures, error) {
	k := keysOf(saleKey)
	pipe := q.rdb.Pipeline()
	acc := pipe.Get(ctx, k.Accepted)
	fl := pipe.HLen(ctx, k.InFlight)
	_, err := pipe.Exec(ctx)
	if err != nil && !errors.Is(err, redis.Nil) {
		return SaleFigures{}, err
	}
	n, _ := acc.Int64()
	return SaleFigures{Accepted: n, InFlight: fl.Val()}, nil
}

// ConsumerFigures is one consumer of the group.
type ConsumerFigures struct {
	Name    string `json:"name"`
	Pending int64  `json:"pending"`
	IdleMS  int64  `json:"idle_ms"`
}

// StreamFigures are the whole queue's.
type StreamFigures struct {
	Stream    string            `json:"stream"`
	Group     string            `json:"group"`
	Length    int64             `json:"length"`  // entries in the stream (acknowledged ones are deleted)
	Lag       int64             `json:"lag"`     // entries not yet delivered to any consumer
	Pending   int64             `json:"pending"` // delivered, not yet acknowledged
	Consumers []ConsumerFigures `json:"consumers"`
}

// StreamFigures reads the stream's and the group's figures; a stream or
// group not there yet reads as zeros.
func (q *Queue) StreamFigures(ctx context.Context) (StreamFigures, error) {
	f := StreamFigures{Stream: q.stream, Group: Group, Consumers: []ConsumerFigures{}}
	n, err := q.rdb.XLen(ctx, q.stream).Result()
	if err != nil {
		return f, err
	}
	f.Length = n
	groups, err := q.rdb.XInfoGroups(ctx, q.stream).Result()
	if err != nil {
		return f, nil // no stream yet
	}
	for _, g := range groups {
		if g.Name == Group {
			f.Lag, f.Pending = g.Lag, g.Pending
		}
	}
	cs, err := q.rdb.XInfoConsumers(ctx, q.stream, Group).Result()
	if err != nil {
		return f, nil
	}
	for _, c := range cs {
		f.Consumers = append(f.Consumers, ConsumerFigures{Name: c.Name, Pending: c.Pending, IdleMS: c.Idle.Milliseconds()})
	}
	return f, nil
}
