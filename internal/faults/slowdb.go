package faults

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// SlowDB takes the sale's row lock in a transaction of its own and holds it
// for d, then rolls back: a slow batch job or a long report holding the row,
// the database as the bottleneck. Every stock write on
// the sale (UPDATE sales ...) and every db-pessimistic SELECT ... FOR UPDATE
// queues behind it, so orders show lock waits, timeouts and retries.
//
// It returns once the lock is held (so that a caller can place orders knowing
// they will wait); the hold runs in the background on a context of its own,
// bounded by d, because the request that asked for it ends at once.
func (s *Service) SlowDB(ctx context.Context, saleID uint64, d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	sqlDB, err := s.store.DB().DB()
	if err != nil {
		return err
	}
	// database/sql rolls a transaction back when its ctx ends, and the
	// request's ctx ends as soon as we answer: the hold gets a ctx of its own,
	// detached from the caller's and bounded by d plus a margin.
	hold, cancel := context.WithTimeout(context.WithoutCancel(ctx), d+10*time.Second)
	// A dedicated connection: the transaction must stay on one connection
	// that the order path can never be handed mid-hold.
	conn, err := sqlDB.Conn(hold)
	if err != nil {
		cancel()
		return fmt.Errorf("faults: slow_db: %w", err)
	}
	tx, err := conn.BeginTx(hold, nil)
	if err != nil {
		conn.Close()
		cancel()
		return fmt.Errorf("faults: slow_db: %w", err)
	}
	if err := inventory.HoldSaleRow(hold, tx, saleID); err != nil {
		_ = tx.Rollback()
		conn.Close()
		cancel()
		if errors.Is(err, inventory.ErrSaleNotFound) {
			return err
		}
		return fmt.Errorf("faults: slow_db: %w", err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		defer conn.Close()
		t := time.NewTimer(d)
		defer t.Stop()
		<-t.C
		_ = tx.Rollback() // nothing was written: rolling back just frees the row
	}()
	return nil
}
