package order

import (
	"context"
	"errors"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// UnitReturner is a Reserver that takes the unit of an expired order back
// into its own stock, once however often it is asked (redis-lua-stock);
// counted false: it has no stock to take it (lost, not rebuilt yet).
type UnitReturner interface {
	ReturnUnit(ctx context.Context, key string, orderID uint64) (bool, error)
}

// Resolve finds the order ref names: a numeric order id, or an order
// ticket. Errors: ErrOrderNotFound, ErrOrderPending, ErrOrderFailed.
func (s *Service) Resolve(ctx context.Context, ref string) (inventory.Order, error) {
	var o inventory.Order
	db := s.store.DB()
	var err error
	if id, perr := strconv.ParseUint(ref, 10, 64); perr == nil {
		o, err = inventory.OrderByID(ctx, db, id)
	} else {
		o, err = inventory.OrderByTicket(ctx, db, ref)
		if errors.Is(err, gorm.ErrRecordNotFound) && s.queue != nil {
			st, found, lerr := s.queue.Lookup(ctx, s.store.DB(), s.LockKey, ref)
			switch {
			case lerr != nil:
				return o, lerr
			case found && st.State == orderqueue.StatePending:
				return o, ErrOrderPending
			case found && st.State == orderqueue.StateFailed:
				return o, ErrOrderFailed
			}
		}
	}
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return o, ErrOrderNotFound
	}
	return o, err
}

// Pay pays userID's reservation ref, for a caller that vouches for who is
// asking (ErrNotYourOrder when the order is another user's): PayProven
// with that check.
func (s *Service) Pay(ctx context.Context, ref, userID string) (inventory.Order, error) {
	return s.PayProven(ctx, ref, func(o inventory.Order) error {
		if o.UserID != userID {
			return ErrNotYourOrder
		}
		return nil
	})
}

// PayProven pays reservation ref once proven accepts the caller's proof
// for the order ref names; proven's error is the answer, and nothing is
// paid. Paying a paid order answers it again; after pay_by (the database's
// clock decides, as for the expiry, so the two can never both win) it is
// ErrReservationExpired.
func (s *Service) PayProven(ctx context.Context, ref string, proven func(inventory.Order) error) (inventory.Order, error) {
	o, err := s.Resolve(ctx, ref)
	if err != nil {
		return o, err
	}
	if err := proven(o); err != nil {
		return inventory.Order{}, err
	}
	err = s.store.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		paid, err := inventory.PayReservation(ctx, tx, o.ID)
		if err == nil {
			o = paid
		}
		return err
	})
	if err != nil {
		return o, err
	}
	if o.Status != inventory.StatusPaid {
		return o, ErrReservationExpired // expired, or due and about to be
	}
	return o, nil
}

// ExpireDue expires the reservations past their pay_by (at most limit) and
// gives their units back; it also finishes returns a stopped replica left
// half done. It answers how many it expired. Every replica runs it: the
// conditional update makes each expiry happen once.
func (s *Service) ExpireDue(ctx context.Context, limit int) (int, error) {
	db := s.store.DB()
	dues, err := inventory.DueReservations(ctx, db, limit)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dues {
		ok, err := s.expire(ctx, d.ID, d.SaleID)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	left, err := inventory.HalfReturned(ctx, db, limit)
	if err != nil {
		return n, err
	}
	for _, d := range left {
		if sale, err := s.Sale(ctx, d.SaleID); err == nil {
			s.returnToStore(ctx, sale, d.ID)
		}
	}
	return n, nil
}

// expire expires order id if it is still an unpaid reservation past its
// pay_by: its status and the unit back in the database in one transaction
// (under the sale's lock where the strategy takes one: a section writes
// read - 1, and a unit added between its read and write would be lost),
// then into the strategy's own stock. ok false: paid or expired meanwhile.
func (s *Service) expire(ctx context.Context, id, saleID uint64) (bool, error) {
	sale, err := s.Sale(ctx, saleID)
	if err != nil {
		return false, err
	}
	inst, err := s.lockers.Get(sale.Strategy, LockOptions(sale))
	if err != nil {
		return false, err
	}
	_, returner := lockstrategy.As[UnitReturner](inst)
	expired := false
	err = s.saleWrite(ctx, sale, inst, func(tx *gorm.DB) (err error) {
		expired, err = inventory.ExpireReservation(ctx, tx, id, saleID, !returner)
		return err
	})
	if err != nil || !expired {
		return false, err
	}
	if returner {
		s.returnToStore(ctx, sale, id)
	}
	if s.OnUnitsBack != nil {
		s.OnUnitsBack(saleID)
	}
	return true, nil
}

// returnToStore gives the unit of expired order id back to the strategy's
// own stock, then notes it done. If this replica stops in between, the
// next ExpireDue finishes it; the store counts the unit once either way.
func (s *Service) returnToStore(ctx context.Context, sale inventory.Sale, id uint64) {
	inst, err := s.lockers.Get(sale.Strategy, LockOptions(sale))
	if err != nil {
		return
	}
	ur, ok := lockstrategy.As[UnitReturner](inst)
	if !ok {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	counted, err := ur.ReturnUnit(rctx, s.LockKey(sale.ID), id)
	if err != nil {
		s.log.Warn("returning an expired order's unit to the store; retried later", "sale", sale.ID, "order", id, "err", err)
		return
	}
	if !counted {
		// No stock to return it to: the return stays due (the next round
		// retries it) until a rebuild counts it. Noting it done here would
		// leave a unit in the database that no Redis counts.
		return
	}
	if err := inventory.NoteUnitReturned(rctx, s.store.DB(), id); err != nil {
		s.log.Warn("noting an expired order's unit returned", "order", id, "err", err)
	}
}

// saleWrite runs fn in a transaction that changes the sale's stock from
// outside an order: under the sale's lock where the strategy takes one
// (inside the lock's own transaction for a TxLease), recorded as a critical
// section like any other.
func (s *Service) saleWrite(ctx context.Context, sale inventory.Sale, inst lockstrategy.Instance, fn func(tx *gorm.DB) error) (err error) {
	db := s.store.DB()
	if locker := inst.Locker; locker != nil {
		waitStart := time.Now()
		lease, err := s.lock(ctx, locker, s.LockKey(sale.ID))
		if err != nil {
			return err
		}
		enter := time.Now()
		defer func() { s.leave(ctx, sale, lease, waitStart, enter, nil, &inventory.Order{}, &err) }()
		if tl, ok := lease.(lockstrategy.TxLease); ok {
			db = tl.Tx() // the lock is this transaction: commit is its Unlock
		}
	}
	return db.WithContext(ctx).Transaction(fn)
}

// RunExpiry expires due reservations every interval until ctx ends;
// expired (may be nil) is told how many each round expired.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration, expired func(n int)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for {
			n, err := s.ExpireDue(ctx, 200)
			if n > 0 && expired != nil {
				expired(n)
			}
			if err != nil && ctx.Err() == nil {
				s.log.Warn("expiring reservations", "err", err)
			}
			if n < 200 || err != nil {
				break
			}
		}
	}
}
