// Package sale creates flash sales: it validates a Spec (bounds, defaults,
// the watchdog rule, whether this replica can run the strategy), inserts
// the sale and, for a strategy that keeps the stock outside the database,
// loads it, all or nothing. The HTTP API and load-test runs both create
// their sales here, so a run's sales are exactly what POST /api/sales makes.
package sale

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
)

// LockKeyer names the lock (and stock) key of a sale: the order service,
// whose critical sections lock that key.
type LockKeyer interface {
	LockKey(saleID uint64) string
}

// Service creates sales. It is safe for concurrent use.
type Service struct {
	db      *gorm.DB
	lockers *lockstrategy.Instances
	keys    LockKeyer
}

// New returns a Service that stores sales in db and checks and builds
// their strategies through lockers.
func New(db *gorm.DB, lockers *lockstrategy.Instances, keys LockKeyer) *Service {
	return &Service{db: db, lockers: lockers, keys: keys}
}

// Create validates spec and stores the sale it describes. A rejected spec
// (a *FieldError) writes nothing; so does a strategy that cannot be built
// or cannot take the stock (ErrStrategyUnavailable).
func (s *Service) Create(ctx context.Context, spec Spec) (inventory.Sale, error) {
	sale, err := s.Validate(spec)
	if err != nil {
		return sale, err
	}
	inst, err := s.lockers.Get(sale.Strategy, order.LockOptions(sale))
	if err != nil {
		return sale, fmt.Errorf("%w: %s: %w", ErrStrategyUnavailable, sale.Strategy, err)
	}
	// Timestamps at the column's precision, so the creator and a later
	// reader see the same instant.
	now := time.Now().UTC().Truncate(time.Microsecond)
	sale.CreatedAt, sale.UpdatedAt = now, now
	// One transaction around the insert and LoadStock: a strategy that keeps
	// the stock outside the database (redis-lua-stock) must have it before
	// anyone can see the sale, and a failed load must leave no sale behind.
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := inventory.NewStore(tx).CreateSale(ctx, &sale); err != nil {
			return err
		}
		if inst.Reserver == nil { // a reserving strategy splits its own stock (LoadStock), not the database's
			if err := inventory.SplitStock(ctx, tx, sale); err != nil {
				return err
			}
		}
		if r := inst.Reserver; r != nil {
			if err := r.LoadStock(ctx, s.keys.LockKey(sale.ID), sale.InitialStock); err != nil {
				return fmt.Errorf("%w: %s: load stock: %w", ErrStrategyUnavailable, sale.Strategy, err)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrStrategyUnavailable) && (dberr.IsConnection(err) || errors.Is(err, sql.ErrTxDone)) {
		// ErrTxDone: database/sql dropped the transaction with its dead
		// connection, and gorm's rollback found it gone.
		return inventory.Sale{}, fmt.Errorf("%w: %w", ErrDBUnavailable, err)
	}
	if err != nil {
		return inventory.Sale{}, err
	}
	return sale, nil
}

// Available lists the strategies this replica can run now (their backends
// answered the last probe).
func (s *Service) Available() []string {
	var out []string
	for _, st := range lockstrategy.All() {
		if st.Available(s.lockers.Backends()) == nil {
			out = append(out, st.Name)
		}
	}
	return out
}
