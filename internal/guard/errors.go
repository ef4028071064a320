package guard

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Sentinels of the typed refusals below, for errors.Is.
var (
	ErrNotOpen     = errors.New("guard: the sale is not open yet")
	ErrRateLimited = errors.New("guard: rate limited")
)

// NotOpenError: the sale opens at OpensAt; Now is when it was asked.
type NotOpenError struct {
	OpensAt time.Time
	Now     time.Time
}

func (e *NotOpenError) Error() string {
	return fmt.Sprintf("guard: the sale opens at %s", e.OpensAt.UTC().Format(time.RFC3339Nano))
}

// Unwrap makes it an ErrNotOpen.
func (e *NotOpenError) Unwrap() error { return ErrNotOpen }

// RetryAfter is the wait until the opening in whole seconds, at least 1.
func (e *NotOpenError) RetryAfter() int { return ceilSeconds(e.OpensAt.Sub(e.Now)) }

// RateLimitedError: a rate limit refused the request; RetryAfter is when
// the next one will pass.
type RateLimitedError struct {
	Limit      string // "user" or "ip"
	RetryAfter time.Duration
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("guard: the per-%s rate limit refused the request; retry after %s", e.Limit, e.RetryAfter)
}

// Unwrap makes it an ErrRateLimited.
func (e *RateLimitedError) Unwrap() error { return ErrRateLimited }

// RetryAfterSeconds is RetryAfter in whole seconds, at least 1 (the
// Retry-After header has no finer unit).
func (e *RateLimitedError) RetryAfterSeconds() int { return ceilSeconds(e.RetryAfter) }

// Ticket refusals.
var (
	ErrTicketRequired = errors.New("guard: the sale needs a purchase ticket")
	ErrBadTicket      = errors.New("guard: the purchase ticket is not valid")
)

// Order token refusals: an order named by its numeric id without its
// token, or with a token that is not its own.
var (
	ErrOrderTokenRequired = errors.New("guard: the order needs its order token")
	ErrBadOrderToken      = errors.New("guard: the order token is not this order's")
)

func ceilSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
