package dblock

import (
	"errors"

	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers this package reacts to.
const (
	errDupEntry        = 1062 // ER_DUP_ENTRY: the unique lock key is taken
	errLockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout passed
	errDeadlock        = 1213 // ER_LOCK_DEADLOCK: InnoDB chose us as the victim
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

// isDeadlock: concurrent INSERTs and DELETEs on one unique key take gap locks
// that InnoDB sometimes resolves by killing one statement. For a lock table
// that only means "contended, try again".
func isDeadlock(err error) bool { return mysqlErrno(err) == errDeadlock }
