package order

import (
	"context"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// A road is how a sale's orders are sold, fixed when the sale is first read
// on this replica (Service.road): its strategy is looked up and built once,
// and each order then takes the road's one method. There are five:
//
//   - lockedRoad: the critical section under the sale's lock (place.go,
//     critical.go); the commit is the section's own transaction, or the
//     lock's (a lock that lives in a transaction hands it over: leave).
//   - combinedRoad: the buyers waiting on this replica sold as one batch
//     under one acquisition, on the batch's goroutine (combine.go, batch.go).
//   - lockFreeRoad: no lock; the stock write itself is safe (a CAS or a
//     conditional decrement) in the order's transaction (lockfree.go).
//   - reservedRoad: the unit taken from the strategy's own stock first, then
//     persisted in a group commit on the gatherer's goroutine
//     (reserved.go, groupcommit.go).
//   - queuedRoad: the unit taken and the order queued in Redis; the answer
//     is a ticket, and the queue's consumer commits later (queued.go).
type road interface {
	sell(ctx context.Context, p Purchase) (inventory.Order, figures, error)
}

// road returns sale's road, chosen on the sale's first order and kept: a
// sale's options never change. A strategy that cannot be built now (its
// backend missing or down) is not kept, and the next order tries again.
func (s *Service) road(sale inventory.Sale) (road, error) {
	if r, ok := s.roads.Load(sale.ID); ok {
		return r.(road), nil
	}
	r, err := s.chooseRoad(sale)
	if err != nil {
		return nil, err
	}
	got, _ := s.roads.LoadOrStore(sale.ID, r)
	return got.(road), nil
}

// chooseRoad builds sale's strategy and picks its road.
func (s *Service) chooseRoad(sale inventory.Sale) (road, error) {
	st, err := lockstrategy.Lookup(sale.Strategy)
	if err != nil {
		return nil, err
	}
	inst, err := s.lockers.Get(sale.Strategy, LockOptions(sale))
	if err != nil {
		return nil, err
	}
	return roadFor(s, sale, st, inst), nil
}

// roadFor is the road of sale, whose strategy st was built as inst: the
// queue for an async sale, else the strategy's kind decides, and a lock's
// sale that combines gets the combined road.
func roadFor(s *Service, sale inventory.Sale, st lockstrategy.Strategy, inst lockstrategy.Instance) road {
	if sale.OrderMode == inventory.OrderAsync {
		return queuedRoad{s: s, sale: sale, rs: inst.Reserver}
	}
	switch inst.Kind() {
	case lockstrategy.KindLockFree:
		return lockFreeRoad{s: s, sale: sale, lf: inst.LockFree}
	case lockstrategy.KindReserve:
		return reservedRoad{s: s, sale: sale, rs: inst.Reserver}
	}
	locked := lockedRoad{s: s, sale: sale, locker: inst.Locker, tokens: st.Tokens, goesOn: st.GoesOnWhenLost}
	if sale.Combine && sale.CombineMaxBatch > 0 {
		return combinedRoad{locked}
	}
	return locked
}

// section is the critical section of one purchase on sale: its buyer and
// idempotency key, on this replica's database.
func (s *Service) section(sale inventory.Sale, p Purchase) criticalSection {
	cs := criticalSection{sale: sale, userID: p.UserID, replica: s.cfg.ReplicaID, db: s.store.DB(), faults: s.cfg.Faults}
	if p.IdempotencyKey != "" {
		cs.idemKey = &p.IdempotencyKey
	}
	return cs
}
