package order

import (
	"errors"
	"fmt"
	"slices"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// asRowContention names a section's row contention for what it is to the
// buyer: waiting too long for the sale's row is a lock not acquired in time,
// a deadlock victim lost a race for the write. Both are retryable; unnamed,
// they were 500s. A duplicate key is a retried request's second order,
// refused.
func asRowContention(err error) error {
	switch {
	case dberr.IsLockWaitTimeout(err):
		return fmt.Errorf("%w: %w", ErrLockTimeout, err)
	case dberr.IsDeadlock(err):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	case dberr.IsDuplicate(err): // the only unique key an order can meet: its idempotency key
		return fmt.Errorf("%w: %w", ErrDuplicateRequest, err)
	}
	return err
}

// asDBUnavailable names a database that did not answer for what it is to
// the buyer (503 db_unavailable, retry), not an internal error: the
// critical section's read, write or commit, the sale's read, and the lock
// itself where the lock lives in the database (strategy needs the DB). A
// lock backend of its own (Redis, ZooKeeper, etcd) that did not answer
// stays ErrBackendDown.
func asDBUnavailable(err error, strategy string) error {
	if err == nil || errors.Is(err, ErrDBUnavailable) || !dberr.IsConnection(err) {
		return err
	}
	if errors.Is(err, lockstrategy.ErrBackendDown) && !lockInDB(strategy) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrDBUnavailable, err)
}

// lockInDB says the strategy keeps its lock in the database.
func lockInDB(strategy string) bool {
	s, err := lockstrategy.Lookup(strategy)
	return err == nil && slices.Contains(s.Needs, lockstrategy.NeedDB)
}
