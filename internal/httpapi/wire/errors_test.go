package wire

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Each domain error maps to its status and code, wrapped or not.
func TestErrorMap(t *testing.T) {
	cases := []struct {
		err    error
		status int
		code   string
	}{
		{order.ErrSoldOut, 409, "sold_out"},
		{order.ErrLimitReached, 409, "limit_reached"},
		{order.ErrConflict, 409, "conflict"},
		{order.ErrFenced, 409, "fenced"},
		{order.ErrLockLost, 503, "lock_lost"},
		{fmt.Errorf("%w: %w", order.ErrLockTimeout, lockstrategy.ErrNotAcquired), 503, "lock_timeout"},
		{order.ErrSaleNotFound, 404, "not_found"},
		{inventory.ErrSaleNotFound, 404, "not_found"},
		{fmt.Errorf("get: %w", lockstrategy.ErrMissingBackend), 503, "strategy_unavailable"},
		{sale.ErrStrategyUnavailable, 503, "strategy_unavailable"},
		{&sale.FieldError{Field: "stock", Message: "stock is required"}, 400, "invalid_field"},
		{runs.ErrNotFound, 404, "not_found"},
		{runs.ErrNotYours, 409, "not_yours"},
		{fmt.Errorf("%w: histogram: bad", runs.ErrInvalid), 400, "invalid_report"},
		{lessondb.ErrBusy, 409, "lesson_busy"},
		{lessondb.ErrNotYours, 409, "not_running"},
		{lessondb.ErrVerdict, 400, "invalid_field"},
		{lessondb.ErrNext, 400, "invalid_field"},
		{lessondb.ErrNotFound, 404, "not_found"},
		{lessondb.ErrUnknown, 404, "not_found"},
		{faults.ErrDisabled, 403, "faults_disabled"},
		{faults.ErrNoSession, 409, "no_session"},
		{fmt.Errorf("%w: %w", order.ErrDBUnavailable, lockstrategy.ErrBackendDown), 503, "db_unavailable"}, // a lock in the DB
		{faults.ErrNotEnsemble, 409, "not_ensemble"},
		{fmt.Errorf("%w: held", faults.ErrZKBusy), 503, "zk_ensemble_busy"},
		{fmt.Errorf("%w: no pid file", faults.ErrZKEnsemble), 503, "zk_ensemble_failed"},
		{faults.ErrNoDBLink, 409, "no_db_link"},
		{fmt.Errorf("%w: node r1 at 127.0.0.1:1: no answer", faults.ErrRedisRestart), 503, "redis_restart_failed"},
		{&http.MaxBytesError{Limit: 64 << 10}, 413, "body_too_large"},
		{errors.New("Error 1064 (42000): You have an error in your SQL syntax"), 500, "internal"},
		// A backend that did not answer on a path without its own mapping
		// (a queued order's lookup when Redis restarted) is down, not a 500.
		{fmt.Errorf("orderqueue: looking up ot_1: %w", io.EOF), 503, "backend_down"},
		{sale.ErrDBUnavailable, 503, "db_unavailable"},
		// The driver's own word for a dead connection, on a path without
		// a mapping (a payment, in a chaos run's cut_db).
		{fmt.Errorf("pay: %w", mysql.ErrInvalidConn), 503, "db_unavailable"},
	}
	for _, c := range cases {
		status, body, _, _ := render(fmt.Errorf("context: %w", c.err))
		if status != c.status || body.Error != c.code || body.Message == "" {
			t.Errorf("%v -> %d %+v, want %d %s", c.err, status, body, c.status, c.code)
		}
		if strings.Contains(body.Message, "SQL") {
			t.Errorf("%v leaks into the message %q", c.err, body.Message)
		}
	}
	for _, retryable := range []error{order.ErrConflict, order.ErrFenced, order.ErrLockLost, order.ErrLockTimeout, order.ErrDBUnavailable} {
		if _, b, _, _ := render(retryable); !b.Retryable {
			t.Errorf("%v should be retryable", retryable)
		}
	}
	if _, b, _, _ := render(order.ErrSoldOut); b.Retryable {
		t.Error("sold_out is not retryable")
	}
	// Entries that take their field or message from the error itself.
	for _, c := range []struct {
		err            error
		field, message string
	}{
		{fmt.Errorf("create: %w", &sale.FieldError{Field: "stock", Message: "stock is required (1..9)"}), "stock", "stock is required (1..9)"},
		{fmt.Errorf("%w: histogram: bad", runs.ErrInvalid), "", "invalid report: histogram: bad"},
		{fmt.Errorf("%w: node r1 at 127.0.0.1:1: no answer", faults.ErrRedisRestart), "node", "faults: redis restart failed: node r1 at 127.0.0.1:1: no answer"},
		{lessondb.ErrVerdict, "verdict", "verdict must be PASS, FAIL, ERROR or SKIP"},
		{lessondb.ErrNext, "next", "next needs en, zh and at"},
		{lessondb.ErrUnknown, "name", "no such lesson"},
	} {
		if _, b, _, _ := render(c.err); b.Field != c.field || b.Message != c.message {
			t.Errorf("%v -> field %q message %q, want %q %q", c.err, b.Field, b.Message, c.field, c.message)
		}
	}
}
