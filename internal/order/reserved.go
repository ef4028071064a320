package order

import (
	"context"
	"errors"
	"fmt"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/reserved"
)

// reservedRoad sells each order from the strategy's own stock first
// (redis-lua-stock), then persists it in a group commit.
type reservedRoad struct {
	s    *Service
	sale inventory.Sale
	rs   lockstrategy.Reserver
}

func (r reservedRoad) sell(ctx context.Context, p Purchase) (inventory.Order, figures, error) {
	o, layer, err := r.s.placeReserved(ctx, r.s.section(r.sale, p), r.rs)
	return o, figures{layer: layer}, err
}

// reservePersistTimeout bounds the database half of a reserved order, so
// that a rebuild of a lost stock (reserved.ReloadSettle, longer)
// reads a database that counts every unit taken from the lost stock.
const reservePersistTimeout = reserved.PersistBound

// placeReserved takes the unit from the strategy's own stock first (atomic
// in Redis), then persists it with a conditional DB decrement, in a batch
// with the other buyers' units of the sale (persistReserved); if that fails
// the unit goes back (giveBack), so that the two stocks agree. A lost stock
// is rebuilt by the one caller the strategy names.
func (s *Service) placeReserved(ctx context.Context, cs criticalSection, rs lockstrategy.Reserver) (inventory.Order, string, error) {
	key := s.LockKey(cs.sale.ID)
	r, ok, err := rs.Reserve(ctx, key, cs.userID)
	if err != nil {
		if errors.Is(err, lockstrategy.ErrStockReloadClaimed) {
			s.rebuildStock(cs.sale.ID, key, rs)
		}
		return inventory.Order{}, LayerStore, asBackendDown(err)
	}
	if !ok {
		return inventory.Order{}, LayerStore, ErrSoldOut
	}
	cs.kind, cs.reserved = writeReserved, r
	pctx, cancel := context.WithTimeout(ctx, reservePersistTimeout)
	o, err := s.persistReserved(pctx, cs)
	timedOut := pctx.Err() != nil && ctx.Err() == nil // our bound, not the buyer leaving
	cancel()
	if err != nil {
		if timedOut && !errors.Is(err, ErrPersistTimeout) {
			err = fmt.Errorf("%w: %w", ErrPersistTimeout, err)
		}
		return o, LayerDatabase, s.giveBack(ctx, rs, key, r, err)
	}
	s.settled(ctx, rs, key, r)
	return o, LayerDatabase, nil
}

// settled ends reservation r after its order committed, on a fresh bounded
// ctx. A failure leaves r counted in flight until a reconciliation repairs
// it; the order stands.
func (s *Service) settled(ctx context.Context, rs lockstrategy.Reserver, key string, r lockstrategy.Reservation) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if err := rs.Settled(uctx, key, r); err != nil {
		s.log.Warn("settling a reserved unit", "key", key, "ticket", r.Ticket, "err", err)
	}
}

// giveBack undoes reservation r after its order failed with err: the unit
// goes back (Unreserve), or, if the database had no unit left for it, the
// store's stock is above the truth and is zeroed instead (Overdrawn). On a
// fresh bounded ctx: the buyer may have hung up.
func (s *Service) giveBack(ctx context.Context, rs lockstrategy.Reserver, key string, r lockstrategy.Reservation, err error) error {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	undo := rs.Unreserve
	if errors.Is(err, errOverdrawn) {
		undo = rs.Overdrawn
		err = errors.Join(ErrSoldOut, err)
	}
	if uerr := undo(uctx, key, r); uerr != nil {
		err = errors.Join(err, uerr)
	}
	return err
}
