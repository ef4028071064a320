package order

import (
	"fmt"

	"github.com/seckill-lab/seckill/internal/dberr"
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
