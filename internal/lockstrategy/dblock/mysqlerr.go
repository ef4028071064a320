package dblock

import (
	"errors"

	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers this package reacts to.
const (
	errDupEntry        = 1062 // ER_DUP_ENTRY: the unique lock key is taken
	errLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout passed
)

func mysqlErrno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func isDuplicate(err error) bool       { return mysqlErrno(err) == errDupEntry }
func isLockWaitTimeout(err error) bool { return mysqlErrno(err) == errLockWaitTimeout }
