package order

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Restocker is a Reserver whose own stock can take more units.
type Restocker interface {
	Restock(ctx context.Context, key string, units int64) error
}

// Restock adds units to sale saleID: to its stock and to its initial
// stock, so that oversold (sold - initial) keeps its meaning. Where the
// strategy takes a lock, under it: a section reads the stock and writes
// read - 1, and a restock between the two would be lost. Lock-free writers
// see the version move (a CAS retries) or decrement in place. A strategy
// that keeps its own stock gets the units after the database: if that
// fails, units stay unsold; they are never sold twice.
func (s *Service) Restock(ctx context.Context, saleID uint64, units int64) error {
	sale, err := s.Sale(ctx, saleID)
	if err != nil {
		return err
	}
	inst, err := s.lockers.Get(sale.Strategy, LockOptions(sale))
	if err != nil {
		return err
	}
	key := s.LockKey(saleID)
	if err := s.saleWrite(ctx, sale, inst, func(tx *gorm.DB) error {
		return inventory.AddStock(ctx, tx, saleID, units)
	}); err != nil {
		return err
	}
	now := time.Now()
	s.history.Record(history.Op{SaleID: saleID, ReplicaID: s.cfg.ReplicaID, CallAt: now, ReturnAt: now, Outcome: history.Restocked})
	if rs, ok := lockstrategy.As[Restocker](inst); ok {
		if err := rs.Restock(ctx, key, units); err != nil {
			return fmt.Errorf("order: restock: the database has the units, the strategy's store does not: %w", err)
		}
	}
	return nil
}
