package dberr

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A connection that failed is one; the server's own refusals and a ctx
// that ended (whose error is a net.Error too) are not.
func TestIsConnection(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("begin: %w", driver.ErrBadConn), true},
		{mysql.ErrInvalidConn, true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{fmt.Errorf("lock: %w", context.DeadlineExceeded), false},
		{context.Canceled, false},
		{&mysql.MySQLError{Number: lockWaitTimeout}, false},
		{errors.New("Error 1064: syntax"), false},
		{nil, false},
	} {
		if got := IsConnection(c.err); got != c.want {
			t.Errorf("IsConnection(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
