// Package dberr names the MariaDB/MySQL errors the lab reacts to, so that
// the lock strategies and the order flow read them the same way.
package dberr

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers.
const (
	dupEntry        = 1062 // ER_DUP_ENTRY: a unique key is taken
	lockWaitTimeout = 1205 // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout passed
	deadlock        = 1213 // ER_LOCK_DEADLOCK: InnoDB chose this transaction as the victim
)

func errno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// IsDuplicate: the INSERT met a row with the same unique key.
func IsDuplicate(err error) bool { return errno(err) == dupEntry }

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
