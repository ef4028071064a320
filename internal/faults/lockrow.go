package faults

import (
	"context"
	"errors"

	"github.com/seckill-lab/seckill/internal/lockstrategy/dblock"
)

// LockRow reads sale id's row in lock_table, the lock of db-lock-table and
// db-lock-table-plain: its owner, hold count and time left, or none. Only
// where faults run: the database lessons read it to see a row counted,
// left by a crashed holder, or deleted under a live one.
func (s *Service) LockRow(ctx context.Context, saleID uint64) (dblock.Row, error) {
	if !s.cfg.Enabled {
		return dblock.Row{}, ErrDisabled
	}
	if s.lockers == nil || s.lockers.Backends().DB == nil {
		return dblock.Row{}, errors.New("faults: this replica has no database to read lock_table from")
	}
	db, err := s.lockers.Backends().DB.DB()
	if err != nil {
		return dblock.Row{}, err
	}
	return dblock.ReadRow(ctx, db, s.orders.LockKey(saleID))
}
