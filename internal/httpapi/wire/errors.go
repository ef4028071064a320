// Package wire is the API's JSON at the edge of every handler, shared by
// httpapi and its route packages:
//
//   - errors.go: the one map from errors to HTTP status and code
//     (WriteError), the one error body (Body), the request errors that know
//     their rendering (Error, BadRequest, BadField, NotFound) and the API's
//     own errors (ErrDBUnavailable, ErrUnauthorized, ...);
//   - decode.go: reading a request strictly (DecodeObject, PathInt), a
//     sale's members (SaleMembers) and the read bound (ReadTimeout).
//
// A client sees a code and a message, never SQL or a stack trace.
package wire

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/classroom"
	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Body is the one shape of every error response: {"error": code,
// "message": text}, plus the offending field for validation errors and
// retryable for outcomes a buyer may simply try again.
type Body struct {
	Error     string `json:"error"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
	Retryable bool   `json:"retryable,omitempty"`
	// OpensAt is the opening of a sale that is not open yet (not_open).
	OpensAt string `json:"opens_at,omitempty"`
	// Owner and OwnerURL name the replica that owns the sale (not_owner).
	Owner    string `json:"owner,omitempty"`
	OwnerURL string `json:"owner_url,omitempty"`
}

// Error is an error that already knows its HTTP rendering: request
// decoding (a body or path parameter that cannot be read, or names nothing
// that exists) builds these directly. What the services answer goes through
// domainErrors instead.
type Error struct {
	Status int
	Body   Body
}

func (e *Error) Error() string { return e.Body.Error + ": " + e.Body.Message }

// BadRequest is a 400 with code and message.
func BadRequest(code, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Body: Body{Error: code, Message: fmt.Sprintf(format, args...)}}
}

// BadField is a 400 naming the field that is wrong.
func BadField(field, format string, args ...any) *Error {
	e := BadRequest("invalid_field", format, args...)
	e.Body.Field = field
	return e
}

// NotFound is a 404 naming the path parameter that names nothing.
func NotFound(field, format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Body: Body{Error: "not_found", Field: field,
		Message: fmt.Sprintf(format, args...)}}
}

// Errors of the API that are not request validation.
var (
	// ErrNoQueue: this replica has no order queue (no default Redis).
	ErrNoQueue = errors.New("httpapi: no order queue on this replica")
	// ErrDurability: the queue's durability could not be read or set.
	ErrDurability     = errors.New("httpapi: the stream's Redis persistence")
	ErrDBUnavailable  = errors.New("httpapi: database does not answer")
	ErrNoLessonAgents = errors.New("httpapi: no load-test agent alive for a lesson")
	ErrUnauthorized   = errors.New("httpapi: missing or wrong admin token")
	ErrFaultForbidden = errors.New("httpapi: fault injection without the admin token")
	ErrNoRoute        = errors.New("httpapi: no such route")
	ErrNoMethod       = errors.New("httpapi: method not allowed")
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

// mapping renders one domain error. field names the offending member; fill,
// when set, completes the body from the error itself (a message or field
// that only the error knows).
type mapping struct {
	err     error
	status  int
	code    string
	message string
	hints   hint
	field   string
	fill    func(err error, b *Body)
}

// domainErrors is THE map from domain errors to HTTP status and code: one
// map, so clients never see internals. The first entry that errors.Is
// matches wins; anything unmatched is a 500 "internal" whose real text goes
// to the log only.
var domainErrors = []mapping{
	// The guards in front of the order flow.
	{err: guard.ErrNotOpen, status: http.StatusConflict, code: "not_open", message: "the sale is not open yet", fill: opensAt},
	{err: guard.ErrTicketRequired, status: http.StatusForbidden, code: "ticket_required", message: "this sale needs a purchase ticket: POST /api/sales/{id}/ticket after the opening, then send it as \"ticket\"", field: "ticket"},
	{err: guard.ErrBadTicket, status: http.StatusForbidden, code: "bad_ticket", message: "the purchase ticket is not valid for this sale and user, or has expired; get a new one", field: "ticket"},
	{err: guard.ErrRateLimited, status: http.StatusTooManyRequests, code: "rate_limited", message: "too many requests; retry after the Retry-After header's seconds", hints: retry},
	{err: order.ErrDuplicateRequest, status: http.StatusConflict, code: "in_progress", message: "a request with this Idempotency-Key is being answered; retry to get its answer", hints: retry},

	// Orders.
	{err: buyer.ErrInvalid, status: http.StatusBadRequest, code: "invalid_field", fill: buyerError},
	{err: order.ErrSoldOut, status: http.StatusConflict, code: "sold_out", message: "the sale is sold out"},
	{err: order.ErrLimitReached, status: http.StatusConflict, code: "limit_reached", message: "this user already has the most orders the sale allows"},
	{err: order.ErrConflict, status: http.StatusConflict, code: "conflict", message: "too many concurrent buyers won the write; retry", hints: retry},
	{err: order.ErrFenced, status: http.StatusConflict, code: "fenced", message: "a stale lock holder's write was rejected; retry", hints: retry},
	{err: order.ErrNotOwner, status: http.StatusConflict, code: "not_owner", message: "another replica owns this sale on the consistent-hash ring; retry there (owner_url)", hints: retry, fill: ownerOf},
	{err: order.ErrNoFenceToken, status: http.StatusInternalServerError, code: "no_fence_token", message: "the sale is fenced and its lock gave no fencing token: nothing was written (a defect of the strategy; it is logged)", hints: warn},
	{err: order.ErrNestedLock, status: http.StatusServiceUnavailable, code: "nested_lock_timeout", message: "the order took its own lock again (injected fault nested_lock) and the lock is not reentrant: it waited for itself; nothing was written", hints: retry},
	{err: order.ErrLockLost, status: http.StatusServiceUnavailable, code: "lock_lost", message: "the lock was lost before commit; nothing was written; retry", hints: retry},
	{err: lockstrategy.ErrHolderCrashed, status: http.StatusServiceUnavailable, code: "holder_crashed", message: "the lock holder crashed right after taking the lock (injected fault crash_after_setnx); nothing was written; retry", hints: retry},
	// Not logged per order: a loaded database makes them by the hundred.
	{err: order.ErrPersistTimeout, status: http.StatusServiceUnavailable, code: "persist_timeout", message: "the unit taken for you could not be saved in time and went back to the sale; retry", hints: retry},
	{err: order.ErrLockTimeout, status: http.StatusServiceUnavailable, code: "lock_timeout", message: "the lock was not acquired in time; retry", hints: retry},
	// Before backend_down: a lock kept in the database wraps both.
	{err: order.ErrAcceptUnknown, status: http.StatusServiceUnavailable, code: "accept_unknown", message: "the order was sent to the queue but its answer was lost: your unit may be taken and your ticket queued; retry with the same Idempotency-Key to get your ticket", hints: retry},
	{err: order.ErrDBUnavailable, status: http.StatusServiceUnavailable, code: "db_unavailable", message: "the database does not answer; retry (an order whose commit reached it before the connection died is counted by GET /api/sales/{id})", hints: retry},
	{err: inventory.ErrSaleNotFound, status: http.StatusNotFound, code: "not_found", message: "no such sale"},

	// The order queue and reservations.
	{err: order.ErrNoQueue, status: http.StatusServiceUnavailable, code: "queue_unavailable", message: "this replica cannot queue this sale's orders (it has no default Redis)", hints: retry | warn},
	{err: ErrNoQueue, status: http.StatusServiceUnavailable, code: "queue_unavailable", message: "this replica has no order queue (no default Redis configured)"},
	{err: order.ErrOrderNotFound, status: http.StatusNotFound, code: "not_found", field: "ref", message: "no such order or order ticket (a ticket accepted by a Redis that restarted without persistence is lost this way)"},
	{err: order.ErrOrderPending, status: http.StatusConflict, code: "order_pending", message: "the ticket's order is still in the queue; retry in a moment", hints: retry},
	{err: order.ErrOrderFailed, status: http.StatusConflict, code: "order_failed", message: "the ticket's order could not be made (GET /api/orders/{ticket} says why); there is nothing to pay"},
	{err: order.ErrReservationExpired, status: http.StatusConflict, code: "reservation_expired", message: "the reservation was not paid before its pay_by; its unit went back to the sale"},
	{err: order.ErrNotYourOrder, status: http.StatusForbidden, code: "not_your_order", field: "user_id", message: "this order belongs to another user"},
	{err: guard.ErrOrderTokenRequired, status: http.StatusForbidden, code: "order_token_required", field: "order_token", message: "an order named by its id needs its order_token, which every answer showing the order carries: ?order_token= to read it, \"order_token\" in the body to pay it (or name it by its order ticket)"},
	{err: guard.ErrBadOrderToken, status: http.StatusForbidden, code: "bad_order_token", field: "order_token", message: "this order_token does not open this order id (or there is no such order)"},
	{err: orderqueue.ErrNoConfigFile, status: http.StatusConflict, code: "no_config_file", message: "the stream's Redis runs without a config file, so a mode set now would not survive its restart; start it with scripts/services.sh", field: "mode"},
	{err: ErrDurability, status: http.StatusServiceUnavailable, code: "durability_failed", fill: ownText, hints: warn},
	// A sale made on a replica that has the strategy's backend, ordered on one
	// that does not (or that runs an older build): not the buyer's fault.
	{err: lockstrategy.ErrUnknownStrategy, status: http.StatusServiceUnavailable, code: "strategy_unavailable", message: "this replica cannot run the sale's strategy", hints: retry | warn},
	{err: lockstrategy.ErrMissingBackend, status: http.StatusServiceUnavailable, code: "strategy_unavailable", message: "this replica cannot run the sale's strategy", hints: retry | warn},
	// Not logged per order: an outage would log thousands; the replica logs
	// each backend's change of state once.
	{err: lockstrategy.ErrStockReloading, status: http.StatusServiceUnavailable, code: "stock_reloading", message: "the stock is being rebuilt from the database after its store lost it; retry in a few seconds", hints: retry},
	{err: lockstrategy.ErrBackendDown, status: http.StatusServiceUnavailable, code: "backend_down", message: "the strategy's backend does not answer right now; retry", hints: retry},

	// Sales.
	{err: sale.ErrInvalid, status: http.StatusBadRequest, code: "invalid_field", fill: fieldError},
	{err: sale.ErrStrategyUnavailable, status: http.StatusServiceUnavailable, code: "strategy_unavailable", message: "the strategy's backend does not answer on this replica", hints: retry | warn},
	{err: sale.ErrDBUnavailable, status: http.StatusServiceUnavailable, code: "db_unavailable", message: "the database does not answer; retry (GET /api/sales shows a sale whose commit reached it before the connection died)", hints: retry | warn},

	// Runs and the agents' shares.
	{err: runs.ErrNotFound, status: http.StatusNotFound, code: "not_found", message: "no such run, step or share"},
	{err: runs.ErrNotYours, status: http.StatusConflict, code: "not_yours", message: "another agent holds this share"},
	{err: runs.ErrInvalid, status: http.StatusBadRequest, code: "invalid_report", fill: reportText},
	{err: runs.ErrNoAgents, status: http.StatusConflict, code: "no_agents", message: "no load-test agent is alive; start one with `loadtest agent --shop URL`"},

	// Lessons.
	{err: lessondb.ErrBusy, status: http.StatusConflict, code: "lesson_busy", message: "a run of this lesson is already pending or running; wait for its verdict"},
	{err: lessondb.ErrNotYours, status: http.StatusConflict, code: "not_running", message: "the run is not running under this agent (finished, expired or claimed by another)"},
	{err: lessondb.ErrPace, status: http.StatusBadRequest, code: "invalid_field", message: "pace must be normal or class", field: "pace"},
	{err: lessondb.ErrVerdict, status: http.StatusBadRequest, code: "invalid_field", message: "verdict must be PASS, FAIL, ERROR or SKIP", field: "verdict"},
	{err: lessondb.ErrNext, status: http.StatusBadRequest, code: "invalid_field", message: "next needs en, zh and at", field: "next"},
	{err: lessondb.ErrNotFound, status: http.StatusNotFound, code: "not_found", message: "no such lesson run"},
	{err: lessondb.ErrUnknown, status: http.StatusNotFound, code: "not_found", message: "no such lesson", field: "name"},
	{err: ErrNoLessonAgents, status: http.StatusConflict, code: "no_agents", message: "no load-test agent is alive to run the lesson; start one with `loadtest agent --shop URL` (shop demo starts two)"},

	// A class's questions and votes.
	{err: classroom.ErrInvalid, status: http.StatusBadRequest, code: "invalid_field", fill: classField},
	{err: classroom.ErrNoSession, status: http.StatusNotFound, code: "not_found", field: "id", message: "no such class session"},
	{err: classroom.ErrNoQuestion, status: http.StatusNotFound, code: "not_found", field: "id", message: "no such question"},
	{err: classroom.ErrClosed, status: http.StatusConflict, code: "question_closed", message: "this question takes no more votes: it was revealed, its minutes are over, or it is full"},
	{err: classroom.ErrRevealed, status: http.StatusConflict, code: "already_revealed", message: "this question was revealed already"},

	// The verdict matrix's runs.
	{err: matrix.ErrInvalid, status: http.StatusBadRequest, code: "invalid_field", fill: matrixField},
	{err: matrixdb.ErrNotFound, status: http.StatusNotFound, code: "not_found", field: "id", message: "no such matrix run"},
	{err: matrixdb.ErrTooLarge, status: http.StatusRequestEntityTooLarge, code: "report_too_large", fill: ownText},

	// Faults.
	{err: faults.ErrDisabled, status: http.StatusForbidden, code: "faults_disabled", message: "fault injection is off on this replica (SECKILL_FAULTS=on enables it)"},
	{err: faults.ErrNoConsumer, status: http.StatusConflict, code: "no_consumer", message: "this replica runs no order-queue consumer (it has no default Redis)"},
	{err: faults.ErrNoSession, status: http.StatusConflict, code: "no_session", message: "this replica has no ZooKeeper session to expire yet"},
	{err: faults.ErrRedisRestart, status: http.StatusServiceUnavailable, code: "redis_restart_failed", field: "node", fill: ownText},
	{err: faults.ErrRedisFault, status: http.StatusServiceUnavailable, code: "redis_fault_failed", field: "node", fill: ownText},
	{err: faults.ErrNoRing, status: http.StatusConflict, code: "no_ring", message: "this replica has no consistent-hash ring view to hold stale"},
	{err: faults.ErrNoReplyDrop, status: http.StatusConflict, code: "no_redis", message: "this replica has no default Redis: no lock script reply to drop"},
	{err: faults.ErrNoFailover, status: http.StatusServiceUnavailable, code: "no_failover", fill: ownText},
	{err: faults.ErrSentinel, status: http.StatusServiceUnavailable, code: "sentinel_failed", fill: ownText},
	{err: faults.ErrNoDBLink, status: http.StatusConflict, code: "no_db_link", message: "this replica's database connections cannot be cut (it started with faults off)"},
	{err: faults.ErrNotEnsemble, status: http.StatusConflict, code: "not_ensemble", fill: ownText},
	{err: faults.ErrZKBusy, status: http.StatusServiceUnavailable, code: "zk_ensemble_busy", fill: ownText, hints: retry},
	{err: faults.ErrZKEnsemble, status: http.StatusServiceUnavailable, code: "zk_ensemble_failed", fill: ownText},

	// The replica itself.
	{err: ErrDBUnavailable, status: http.StatusServiceUnavailable, code: "db_unavailable", message: "the database does not answer", hints: retry | warn},
	{err: ErrFaultForbidden, status: http.StatusForbidden, code: "forbidden", message: "fault injection needs Authorization: Bearer <SECKILL_ADMIN_TOKEN>"},
	{err: ErrUnauthorized, status: http.StatusUnauthorized, code: "unauthorized", message: "this request needs Authorization: Bearer <SECKILL_ADMIN_TOKEN>"},
	{err: ErrNoRoute, status: http.StatusNotFound, code: "not_found", message: "no such route; GET / lists them"},
	{err: ErrNoMethod, status: http.StatusMethodNotAllowed, code: "method_not_allowed", message: "method not allowed on this route; see the Allow header"},
}

// opensAt adds the opening to a not_open answer.
func opensAt(err error, b *Body) {
	var e *guard.NotOpenError
	if errors.As(err, &e) {
		b.OpensAt = e.OpensAt.UTC().Format(time.RFC3339Nano)
		b.Message = "the sale opens at " + b.OpensAt
	}
}

// ownerOf names the owner of a sale routed elsewhere (not_owner).
func ownerOf(err error, b *Body) {
	var e *lockstrategy.NotOwnerError
	if errors.As(err, &e) {
		b.Owner, b.OwnerURL = e.Owner, e.OwnerURL
		b.Message = fmt.Sprintf("replica %s owns this sale on the consistent-hash ring, as this replica sees it; retry at %s", e.Owner, e.OwnerURL)
	}
}

// retryAfter is the Retry-After header of a refusal that knows when to
// come back (the opening, a rate limit), in seconds.
func retryAfter(err error) string {
	var notOpen *guard.NotOpenError
	var limited *guard.RateLimitedError
	switch {
	case errors.As(err, &notOpen):
		return strconv.Itoa(notOpen.RetryAfter())
	case errors.As(err, &limited):
		return strconv.Itoa(limited.RetryAfterSeconds())
	}
	return ""
}

// buyerError names the user id or key buyer.Check refused, and why.
func buyerError(err error, b *Body) {
	var be *buyer.Error
	if errors.As(err, &be) {
		b.Field, b.Message = be.Field, be.Message
	}
}

// fieldError fills in the member a *sale.FieldError names and its message.
func fieldError(err error, b *Body) {
	var fe *sale.FieldError
	if errors.As(err, &fe) {
		b.Field, b.Message = fe.Field, fe.Message
	}
}

// classField names the member of a question or a vote that is wrong.
func classField(err error, b *Body) {
	var fe *classroom.FieldError
	if errors.As(err, &fe) {
		b.Field, b.Message = fe.Field, fe.Msg
	}
}

// matrixField names the member of a matrix report at fault, and says why
// after its path, which a message read alone needs.
func matrixField(err error, b *Body) {
	var fe *matrix.FieldError
	if errors.As(err, &fe) {
		b.Field, b.Message = fe.Field, fe.Field+": "+fe.Message
	}
}

// reportText says what is wrong with an agent's report: the error's own
// text, which the runs package writes for its reader, and the member at
// fault when it names one.
func reportText(err error, b *Body) {
	b.Message = clip.Input(strings.TrimPrefix(err.Error(), "runs: "))
	var re *runs.ReportError
	if errors.As(err, &re) {
		b.Field = re.Field
	}
}

// ownText is the error's own text: which node did not come back, at which
// address, and why.
func ownText(err error, b *Body) { b.Message = err.Error() }

// registered reports whether err has an entry in domainErrors.
func registered(err error) bool {
	for _, m := range domainErrors {
		if errors.Is(err, m.err) {
			return true
		}
	}
	return false
}

// OrDBUnavailable is err when the map knows it, else a database failure:
// the stores behind runs and lessons fail only when the database does.
func OrDBUnavailable(err error) error {
	if registered(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrDBUnavailable, err)
}

// InternalBody is all a client learns of an unexpected failure.
var InternalBody = Body{Error: "internal", Message: "internal error"}

// render maps err to its status and body, and says whether (and at which
// level) to log the real error: always for an unexpected one, which the
// client sees nothing of.
func render(err error) (status int, body Body, logLevel slog.Level, logIt bool) {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Status, ae.Body, 0, false
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return http.StatusRequestEntityTooLarge, Body{Error: "body_too_large",
			Message: fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit)}, 0, false
	}
	for _, m := range domainErrors {
		if errors.Is(err, m.err) {
			body := Body{Error: m.code, Message: m.message, Field: m.field, Retryable: m.hints&retry != 0}
			if m.fill != nil {
				m.fill(err, &body)
			}
			return m.status, body, slog.LevelWarn, m.hints&warn != 0
		}
	}
	// A backend that did not answer on a path that does not name it (a
	// queued order's lookup while Redis restarts, a payment while the
	// database is cut off): down, retry; logged, since some path should
	// have named it. The driver's own dead-connection errors are the
	// database's; any other transport error may be any backend's.
	switch {
	case dberr.IsConnection(err) && !lockstrategy.IsTransport(err):
		status, body, _, _ := render(fmt.Errorf("%w: %w", ErrDBUnavailable, err))
		return status, body, slog.LevelWarn, true
	case lockstrategy.IsTransport(err):
		status, body, _, _ := render(fmt.Errorf("%w: %w", lockstrategy.ErrBackendDown, err))
		return status, body, slog.LevelWarn, true
	}
	return http.StatusInternalServerError, InternalBody, slog.LevelError, true
}

// WriteError sends err's rendering and aborts the chain. When the client
// has gone (its ctx is canceled) nothing useful can be sent, so nothing is:
// there is no standard status for "client closed request".
func WriteError(c *gin.Context, log *slog.Logger, err error) {
	if c.Request.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		c.Abort()
		return
	}
	status, body, level, logIt := render(err)
	if logIt {
		log.Log(c.Request.Context(), level, "request failed", "method", c.Request.Method,
			"route", RouteOf(c), "status", status, "err", err)
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="seckill"`)
	}
	if ra := retryAfter(err); ra != "" {
		c.Header("Retry-After", ra)
	}
	c.AbortWithStatusJSON(status, body)
}

// RouteOf names the matched route pattern (not the raw path, which is
// client-controlled), or the raw path when nothing matched.
func RouteOf(c *gin.Context) string {
	if p := c.FullPath(); p != "" {
		return p
	}
	return c.Request.URL.Path
}
