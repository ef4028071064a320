package order_test

import (
	"fmt"
	"testing"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
)

// A lock backend that does not answer is an outcome of its own, not an
// unknown error: the dashboard counts it among the system's failures, and
// the order flow does not log each such order as an error (a Redis restart
// under load logged hundreds). A lock that lives in the database and does
// not answer stays db_unavailable.
func TestOutcomeOfBackendDown(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("order: lock: %w: redislock: acquire: EOF", lockstrategy.ErrBackendDown), order.OutcomeBackendDown},
		{fmt.Errorf("%w: %w", order.ErrDBUnavailable, lockstrategy.ErrBackendDown), order.OutcomeDBUnavailable},
		{fmt.Errorf("something else"), order.OutcomeError},
	} {
		if got := order.OutcomeOf(c.err); got != c.want {
			t.Errorf("OutcomeOf(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
