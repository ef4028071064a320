// Package dberr names the MariaDB/MySQL errors the lab reacts to, so that
// the lock strategies and the order flow read them the same way.
package dberr

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers.
const (
	dupEntry        = 1062 // ER_DUP_ENTRY: a unique key is taken
	lockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout passed
	deadlock        = 1213 // ER_LOCK_DEADLOCK: InnoDB chose this transaction as the victim
	parseError      = 1064 // ER_PARSE_ERROR: the server does not know the statement's syntax
)

func errno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// rowRefusals are the errors where the server refused a row for what it
// holds: the same statement with the same row fails the same way every
// time, whatever the load.
var rowRefusals = map[uint16]bool{
	dupEntry: true,
	1048:     true, // ER_BAD_NULL_ERROR
	1264:     true, // ER_WARN_DATA_OUT_OF_RANGE
	1265:     true, // WARN_DATA_TRUNCATED
	1292:     true, // ER_TRUNCATED_WRONG_VALUE
	1366:     true, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD: a string the charset cannot hold
	1406:     true, // ER_DATA_TOO_LONG
	1451:     true, // ER_ROW_IS_REFERENCED_2
	1452:     true, // ER_NO_REFERENCED_ROW_2
	3819:     true, // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
	4025:     true, // ER_CONSTRAINT_FAILED (MariaDB's CHECK)
}

// IsRowRefused: the server refused a row for what it holds (a unique key
// taken, a value too long or not storable, a constraint): retrying the same
// row fails again. A batch that meets one finds the row that caused it by
// writing its rows one by one. Anything else (a timeout, a lost
// connection, a deadlock) may pass on a retry.
func IsRowRefused(err error) bool { return rowRefusals[errno(err)] }

// IsDuplicate: the INSERT met a row with the same unique key.
func IsDuplicate(err error) bool { return errno(err) == dupEntry }

// IsDuplicateOn: the INSERT met a row with the same key on the unique index
// named index (the server names it at the end of its message: "Duplicate
// entry '7-bob' for key 'orders_limit_one'"; MySQL 8 prefixes the table).
func IsDuplicateOn(err error, index string) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != dupEntry {
		return false
	}
	return strings.HasSuffix(me.Message, "'"+index+"'") || strings.HasSuffix(me.Message, "."+index+"'")
}

// IsSyntax: the server could not parse the statement (a MariaDB-only
// syntax sent to MySQL); nothing ran.
func IsSyntax(err error) bool { return errno(err) == parseError }

// IsLockWaitTimeout: a row lock was not had within the server's lock wait
// timeout; only the statement was rolled back.
func IsLockWaitTimeout(err error) bool { return errno(err) == lockWaitTimeout }

// IsDeadlock: InnoDB broke a lock cycle by rolling this whole transaction
// back (concurrent INSERTs and DELETEs on one unique key take gap locks that
// it sometimes resolves so). For a contended write it means "try again".
func IsDeadlock(err error) bool { return errno(err) == deadlock }

// IsConnection: the statement never got an answer from the server (the
// connection was refused, closed, reset or broken mid-packet). What the
// server did with a statement already sent is unknown; a transaction whose
// connection died is rolled back by the server unless its COMMIT got there.
// A ctx that ended is not one (context.DeadlineExceeded is a net.Error).
func IsConnection(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
