package order

import (
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// MariaDB/MySQL errors of contention on a row, which a buyer may retry.
const (
	errnoLockWaitTimeout = 1205 // a row lock not had within innodb_lock_wait_timeout
	errnoDeadlock        = 1213 // InnoDB rolled this transaction back to break a cycle
)

// asRowContention names a section's row contention for what it is to the
// buyer: waiting too long for the sale's row is a lock not acquired in time,
// a deadlock victim lost a race for the write. Both are retryable; unnamed,
// they were 500s.
func asRowContention(err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return err
	}
	switch me.Number {
	case errnoLockWaitTimeout:
		return fmt.Errorf("%w: %w", ErrLockTimeout, err)
	case errnoDeadlock:
		return fmt.Errorf("%w: %w", ErrConflict, err)
	}
	return err
}
