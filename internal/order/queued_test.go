package order

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A failed accept that may have run in Redis (sent, its reply lost) is not
// a refusal: it answers accept_unknown; one that never left or that Redis
// refused stays backend_down.
func TestAcceptMayHaveRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the reply timed out", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"the connection closed mid-call", fmt.Errorf("accept: %w", io.EOF), true},
		{"the connection was reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"no connection", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, false},
		{"refused before sending", fmt.Errorf("accept: %w", syscall.ECONNREFUSED), false},
		{"the pool is empty", redis.ErrPoolTimeout, false},
		{"not a transport error", errors.New("script error"), false},
		{"no error", nil, false},
	} {
		if got := acceptMayHaveRun(tc.err); got != tc.want {
			t.Errorf("%s (%v): got %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
	if got := OutcomeOf(fmt.Errorf("%w: %w", ErrAcceptUnknown, io.EOF)); got != OutcomeAcceptUnknown {
		t.Errorf("outcome: got %s", got)
	}
}
