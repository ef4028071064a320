package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
)

// errorBody is the one shape of every error response: {"error": code,
// "message": text}, plus the offending field for validation errors and
// retryable for outcomes a buyer may simply try again.
type errorBody struct {
	Error     string `json:"error"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
	Retryable bool   `json:"retryable,omitempty"`
}

// apiError is an error that already knows its HTTP rendering: request
// validation builds these directly.
type apiError struct {
	status int
	body   errorBody
}

func (e *apiError) Error() string { return e.body.Error + ": " + e.body.Message }

// badRequest is a 400 with code and message.
func badRequest(code, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, body: errorBody{Error: code, Message: fmt.Sprintf(format, args...)}}
}

// badField is a 400 naming the field that is wrong.
func badField(field, format string, args ...any) *apiError {
	e := badRequest("invalid_field", format, args...)
	e.body.Field = field
	return e
}

// Errors of this package that are not request validation.
var (
	errStrategyUnavailable = errors.New("httpapi: strategy cannot be built")
	errDBUnavailable       = errors.New("httpapi: database does not answer")
	errUnauthorized        = errors.New("httpapi: missing or wrong admin token")
	errFaultForbidden      = errors.New("httpapi: fault injection without the admin token")
	errNoRoute             = errors.New("httpapi: no such route")
	errNoMethod            = errors.New("httpapi: method not allowed")
)

// hint qualifies a mapping.
type hint uint8

const (
	// retry marks outcomes a buyer may simply try again ("retryable": true).
	retry hint = 1 << iota
	// warn logs the cause: a replica-side problem an operator should see.
	// Expected outcomes (sold out, lock timeout) are never logged: they come
	// by the thousand under load, on the hot path.
	warn
)

// domainErrors is THE map from domain errors to HTTP status and code
// (DESIGN.md §10: one map; clients never see internals). The first entry
// that errors.Is matches wins; anything unmatched is a 500 "internal" whose
// real text goes to the log only.
var domainErrors = []struct {
	err     error
	status  int
	code    string
	message string
	hints   hint
}{
	{order.ErrSoldOut, http.StatusConflict, "sold_out", "the sale is sold out", 0},
	{order.ErrLimitReached, http.StatusConflict, "limit_reached", "this user already has the most orders the sale allows", 0},
	{order.ErrConflict, http.StatusConflict, "conflict", "too many concurrent buyers won the write; retry", retry},
	{order.ErrFenced, http.StatusConflict, "fenced", "a stale lock holder's write was rejected; retry", retry},
	{order.ErrLockLost, http.StatusServiceUnavailable, "lock_lost", "the lock was lost before commit; nothing was written; retry", retry},
	{faults.ErrHolderCrashed, http.StatusServiceUnavailable, "holder_crashed", "the lock holder crashed right after taking the lock (injected fault crash_after_setnx); nothing was written; retry", retry},
	{order.ErrLockTimeout, http.StatusServiceUnavailable, "lock_timeout", "the lock was not acquired in time; retry", retry},
	{order.ErrSaleNotFound, http.StatusNotFound, "not_found", "no such sale", 0},
	{inventory.ErrSaleNotFound, http.StatusNotFound, "not_found", "no such sale", 0},
	// A sale made on a replica that has the strategy's backend, ordered on one
	// that does not (or that runs an older build): not the buyer's fault.
	{lockstrategy.ErrUnknownStrategy, http.StatusServiceUnavailable, "strategy_unavailable", "this replica cannot run the sale's strategy", retry | warn},
	{lockstrategy.ErrMissingBackend, http.StatusServiceUnavailable, "strategy_unavailable", "this replica cannot run the sale's strategy", retry | warn},
	// Not logged per order: an outage would log thousands; the replica logs
	// each backend's change of state once.
	{lockstrategy.ErrStockReloading, http.StatusServiceUnavailable, "stock_reloading", "the stock is being rebuilt from the database after its store lost it; retry in a few seconds", retry},
	{lockstrategy.ErrBackendDown, http.StatusServiceUnavailable, "backend_down", "the strategy's backend does not answer right now; retry", retry},
	{errStrategyUnavailable, http.StatusServiceUnavailable, "strategy_unavailable", "the strategy's backend does not answer on this replica", retry | warn},
	{errDBUnavailable, http.StatusServiceUnavailable, "db_unavailable", "the database does not answer", retry | warn},
	{faults.ErrDisabled, http.StatusForbidden, "faults_disabled", "fault injection is off on this replica (SECKILL_FAULTS=on enables it)", 0},
	{faults.ErrNoSession, http.StatusConflict, "no_session", "this replica has no ZooKeeper session to expire yet", 0},
	{errFaultForbidden, http.StatusForbidden, "forbidden", "fault injection needs Authorization: Bearer <SECKILL_ADMIN_TOKEN>", 0},
	{errUnauthorized, http.StatusUnauthorized, "unauthorized", "this request needs Authorization: Bearer <SECKILL_ADMIN_TOKEN>", 0},
	{errNoRoute, http.StatusNotFound, "not_found", "no such route; GET / lists them", 0},
	{errNoMethod, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed on this route; see the Allow header", 0},
}

// internalBody is all a client learns of an unexpected failure.
var internalBody = errorBody{Error: "internal", Message: "internal error"}

// render maps err to its status and body, and says whether (and at which
// level) to log the real error: always for an unexpected one, which the
// client sees nothing of.
func render(err error) (status int, body errorBody, logLevel slog.Level, logIt bool) {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status, ae.body, 0, false
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return http.StatusRequestEntityTooLarge, errorBody{Error: "body_too_large",
			Message: fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit)}, 0, false
	}
	for _, m := range domainErrors {
		if errors.Is(err, m.err) {
			return m.status, errorBody{Error: m.code, Message: m.message, Retryable: m.hints&retry != 0},
				slog.LevelWarn, m.hints&warn != 0
		}
	}
	return http.StatusInternalServerError, internalBody, slog.LevelError, true
}

// writeError sends err's rendering and aborts the chain. When the client
// has gone (its ctx is canceled) nothing useful can be sent, so nothing is:
// there is no standard status for "client closed request".
func writeError(c *gin.Context, log *slog.Logger, err error) {
	if c.Request.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		c.Abort()
		return
	}
	status, body, level, logIt := render(err)
	if logIt {
		log.Log(c.Request.Context(), level, "request failed", "method", c.Request.Method,
			"route", routeOf(c), "status", status, "err", err)
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="seckill"`)
	}
	c.AbortWithStatusJSON(status, body)
}

// routeOf names the matched route pattern (not the raw path, which is
// client-controlled), or the raw path when nothing matched.
func routeOf(c *gin.Context) string {
	if p := c.FullPath(); p != "" {
		return p
	}
	return c.Request.URL.Path
}
