package sale

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/reserved"
)

// Bounds and defaults of a new sale. The bounds keep one request from
// tying a replica up for long (work_ms is slept inside the lock, by every
// buyer) and keep values inside the INT columns of migrations/.
const (
	MaxStock  = 1_000_000
	MaxWorkMS = 60_000
	// MaxReservedWorkMS bounds work_ms where the stock lives in Redis and
	// the order is saved synchronously: the save, work included, must end
	// within reserved.PersistBound (2 s), with room for the database.
	MaxReservedWorkMS   = int(reserved.PersistBound/time.Millisecond) * 3 / 4
	MaxTTLMS            = 600_000
	DefaultTTLMS        = 2000 // also the column default in migrations/
	DefaultPerUserLimit = 1
	MaxPerUserLimit     = 1_000_000
	MaxNameLen          = 100 // characters; sales.name is VARCHAR(100)
	MaxProductLen       = 100 // characters; sales.product is VARCHAR(100)
	MaxOpensInMS        = 3_600_000
	MaxOpensAhead       = 7 * 24 * time.Hour // opens_at at most this far ahead
	MaxRateLimit        = 100_000            // requests per second per user or per IP
	MinPayWithinMS      = 500                // a reservation's pay window: at least the expiry's granularity
	MaxPayWithinMS      = 86_400_000
)

// MinOpensAt is the earliest opens_at: the first instant the column
// (DATETIME, years 1000 to 9999) can hold. An opening in the past opens
// the sale at once, however far back it is.
var MinOpensAt = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)

// Spec is what a new sale asks for. Pointers tell an absent member from a
// zero one: ttl_ms 0 and per_user_limit 0 differ from their absence.
type Spec struct {
	Name *string
	// Product is what the sale sells, the shop page's headline; absent or
	// blank: the page says "Flash sale #ID" in the reader's language.
	Product      *string
	Strategy     *string
	Stock        *int64
	WorkMS       *int64
	TTLMS        *int64
	Fencing      *bool
	Watchdog     *bool
	PerUserLimit *int64
	// NoQueue (redlock only): every contender polls the masters itself,
	// without the per-process queue (the lesson redlock-herd's "before").
	NoQueue *bool
	// The guards: the opening (an RFC 3339 time, or milliseconds from now,
	// not both), the sold-out cache (default on), rate limits per user and
	// per client IP (per second, 0 = off) and purchase tickets.
	OpensAt        *string
	OpensInMS      *int64
	SoldOutCache   *bool
	RateLimitUser  *int64
	RateLimitIP    *int64
	TicketRequired *bool
	// The order mode ("sync" or "async") and the reservations' pay window
	// (0: orders are paid when made).
	OrderMode   *string
	PayWithinMS *int64
	// Combining: sell the orders waiting on one replica for the lock as one
	// batch (a strategy that takes a lock, order_mode sync).
	Combine          *bool
	CombineMaxBatch  *int64
	CombineMaxWaitUS *int64
	// StockShards splits the stock into that many shards sold at once (a
	// strategy that splits it: lockstrategy.Splitting).
	StockShards *int64
}

// Validate checks spec member by member, in a fixed order (the first wrong
// member is the one reported), and fills in the defaults. It writes
// nothing; the error is a *FieldError.
func (s *Service) Validate(spec Spec) (inventory.Sale, error) {
	var sale inventory.Sale
	st, err := s.strategy(spec.Strategy)
	if err != nil {
		return sale, err
	}
	sale.Strategy = st.Name

	if spec.Stock == nil {
		return sale, FieldErrorf("stock", "stock is required (1..%d)", MaxStock)
	}
	if *spec.Stock < 1 || *spec.Stock > MaxStock {
		return sale, FieldErrorf("stock", "stock must be between 1 and %d", MaxStock)
	}
	sale.InitialStock = *spec.Stock

	if sale.WorkMS, err = IntIn("work_ms", spec.WorkMS, 0, 0, MaxWorkMS); err != nil {
		return sale, err
	}
	if sale.TTLMS, err = IntIn("ttl_ms", spec.TTLMS, DefaultTTLMS, 0, MaxTTLMS); err != nil {
		return sale, err
	}
	if sale.TTLMS == 0 {
		sale.TTLMS = DefaultTTLMS
	}
	if sale.PerUserLimit, err = IntIn("per_user_limit", spec.PerUserLimit, DefaultPerUserLimit, 0, MaxPerUserLimit); err != nil {
		return sale, err
	}
	if spec.Fencing != nil {
		sale.Fencing = *spec.Fencing
	}
	if sale.Watchdog, err = watchdog(st, spec.Watchdog); err != nil {
		return sale, err
	}
	if sale.NoQueue, err = noQueue(st, spec.NoQueue); err != nil {
		return sale, err
	}
	if sale.Name, err = name(st, spec.Name); err != nil {
		return sale, err
	}
	if sale.Product, err = product(spec.Product); err != nil {
		return sale, err
	}
	if err := guards(&sale, spec, time.Now()); err != nil {
		return sale, err
	}
	if sale.OrderMode, err = orderMode(st, spec.OrderMode); err != nil {
		return sale, err
	}
	if st.Queues && sale.OrderMode == inventory.OrderSync && sale.WorkMS > MaxReservedWorkMS {
		return sale, FieldErrorf("work_ms", "work_ms must be at most %d for %s in order_mode %s: the unit it takes is given back unless its order, work included, is saved within %v; use order_mode %s or less work",
			MaxReservedWorkMS, st.Name, inventory.OrderSync, reserved.PersistBound, inventory.OrderAsync)
	}
	if sale.PayWithinMS, err = IntIn("pay_within_ms", spec.PayWithinMS, 0, 0, MaxPayWithinMS); err != nil {
		return sale, err
	}
	if sale.PayWithinMS > 0 && sale.PayWithinMS < MinPayWithinMS {
		return sale, FieldErrorf("pay_within_ms", "pay_within_ms must be 0 (no reservation) or between %d and %d", MinPayWithinMS, MaxPayWithinMS)
	}
	if err := combining(&sale, st, spec); err != nil {
		return sale, err
	}
	if err := stockShards(&sale, st, spec); err != nil {
		return sale, err
	}
	return sale, nil
}

// orderMode is the sale's order mode: sync unless async is asked, which
// only a strategy whose stock lives in the default Redis can do: the
// queue's script takes the unit and queues the order in one atomic step,
// which needs the unit and the queue in one Redis.
func orderMode(st lockstrategy.Strategy, mode *string) (string, error) {
	switch {
	case mode == nil || *mode == inventory.OrderSync:
		return inventory.OrderSync, nil
	case *mode != inventory.OrderAsync:
		return "", FieldErrorf("order_mode", "order_mode must be %q or %q, not %q", inventory.OrderSync, inventory.OrderAsync, clip.Input(*mode))
	case !st.Queues:
		return "", FieldErrorf("order_mode", "order_mode async needs a strategy that keeps the stock in Redis (%s): one script must take the unit and queue the order atomically; %s keeps the stock in the database, so a queued order could not hold its unit",
			strings.Join(lockstrategy.Queueing(), ", "), st.Name)
	}
	return inventory.OrderAsync, nil
}

// LenientOrderMode is an order mode for strategy that Validate never
// refuses: async only where the strategy can queue, else nil (sync). A run
// over several strategies asks for async this way.
func LenientOrderMode(strategy, mode string) *string {
	if st, err := lockstrategy.Lookup(strategy); mode != inventory.OrderAsync || err != nil || !st.Queues {
		return nil
	}
	return &mode
}

// guards fills in the flash-sale guards of spec: the opening (now when
// none is asked), the sold-out cache (on unless turned off), rate limits
// and tickets.
func guards(sale *inventory.Sale, spec Spec, now time.Time) error {
	opens, err := opening(spec.OpensAt, spec.OpensInMS, now)
	if err != nil {
		return err
	}
	sale.OpensAt = opens
	sale.SoldOutCache = spec.SoldOutCache == nil || *spec.SoldOutCache
	if sale.RateLimitUser, err = IntIn("rate_limit_user", spec.RateLimitUser, 0, 0, MaxRateLimit); err != nil {
		return err
	}
	if sale.RateLimitIP, err = IntIn("rate_limit_ip", spec.RateLimitIP, 0, 0, MaxRateLimit); err != nil {
		return err
	}
	sale.TicketRequired = spec.TicketRequired != nil && *spec.TicketRequired
	return nil
}

// opening is when orders open: opens_at, or opens_in_ms after now, or now.
// Kept to the microsecond, as the column does.
func opening(at *string, inMS *int64, now time.Time) (time.Time, error) {
	now = now.UTC().Truncate(time.Microsecond)
	switch {
	case at != nil && inMS != nil:
		return now, FieldErrorf("opens_in_ms", "give opens_at or opens_in_ms, not both")
	case inMS != nil:
		ms, err := IntIn("opens_in_ms", inMS, 0, 0, MaxOpensInMS)
		return now.Add(time.Duration(ms) * time.Millisecond), err
	case at != nil:
		t, err := time.Parse(time.RFC3339Nano, *at)
		if err != nil {
			return now, FieldErrorf("opens_at", "opens_at must be an RFC 3339 time such as 2026-11-23T20:00:00Z, not %q", clip.Input(*at))
		}
		if t.After(now.Add(MaxOpensAhead)) {
			return now, FieldErrorf("opens_at", "opens_at must be at most %s ahead", MaxOpensAhead)
		}
		if t.Before(MinOpensAt) {
			return now, FieldErrorf("opens_at", "opens_at must be %s or later, not %q", MinOpensAt.Format(time.RFC3339), clip.Input(*at))
		}
		return t.UTC().Truncate(time.Microsecond), nil
	}
	return now, nil
}

// strategy resolves the strategy member: known, and configured here. The
// check is "configured", not the last probe's verdict: a sale does not need
// its backend to answer this second (a lesson creates one right after
// restarting a Redis), only to exist.
func (s *Service) strategy(name *string) (lockstrategy.Strategy, error) {
	if name == nil || *name == "" {
		return lockstrategy.Strategy{}, FieldErrorf("strategy", "strategy is required; known: %s", strings.Join(lockstrategy.Names(), ", "))
	}
	st, err := lockstrategy.Lookup(*name)
	if err != nil {
		return st, FieldErrorf("strategy", "unknown strategy %q; known: %s", clip.Input(*name), strings.Join(lockstrategy.Names(), ", "))
	}
	if err := st.Configured(s.lockers.Backends()); err != nil {
		needs := make([]string, len(st.Needs))
		for i, n := range st.Needs {
			needs[i] = string(n)
		}
		return st, FieldErrorf("strategy", "strategy %q is unavailable on this replica: it needs %s, not all connected; available: %s",
			st.Name, strings.Join(needs, " and "), strings.Join(s.Available(), ", "))
	}
	return st, nil
}

// watchdog is the sale's watchdog switch: on unless turned off, and only a
// strategy whose lease renews itself has one to turn off.
func watchdog(st lockstrategy.Strategy, want *bool) (bool, error) {
	if want == nil || *want {
		return true, nil
	}
	if !st.Renews {
		return false, FieldErrorf("watchdog", "strategy %q has no watchdog to turn off; only %s renew their lease",
			st.Name, strings.Join(lockstrategy.Renewing(), ", "))
	}
	return false, nil
}

// noQueue is the no_queue switch asked for: only redlock has the queue to
// turn off.
func noQueue(st lockstrategy.Strategy, want *bool) (bool, error) {
	if want == nil || !*want {
		return false, nil
	}
	if st.Name != "redlock" {
		return false, FieldErrorf("no_queue", "strategy %q has no queue in front of its lock to turn off; only redlock has one", st.Name)
	}
	return true, nil
}

// LenientWatchdog is a watchdog switch for strategy that Validate never
// refuses: off only where the lease renews itself, else nil (the default).
// A run over several strategies asks for watchdog:false this way, turning
// off the watchdogs there are and leaving the other steps as they are.
func LenientWatchdog(strategy string, watchdog bool) *bool {
	if st, err := lockstrategy.Lookup(strategy); watchdog || err != nil || !st.Renews {
		return nil
	}
	return &watchdog
}

// name is the trimmed name given, or one made from the strategy.
func name(st lockstrategy.Strategy, given *string) (string, error) {
	if given != nil {
		if n := strings.TrimSpace(*given); n != "" {
			if utf8.RuneCountInString(n) > MaxNameLen {
				return "", FieldErrorf("name", "name must be at most %d characters", MaxNameLen)
			}
			return n, nil
		}
	}
	return st.Name + " sale", nil
}

// product is the trimmed product given, "" when absent or blank.
func product(given *string) (string, error) {
	if given == nil {
		return "", nil
	}
	p := strings.TrimSpace(*given)
	if n := utf8.RuneCountInString(p); n > MaxProductLen {
		return "", FieldErrorf("product", "product must be at most %d characters, not %d", MaxProductLen, n)
	}
	return p, nil
}

// IntIn returns *v, or def when v is absent, after checking lo <= *v <= hi;
// out of range, a *FieldError naming field. Other requests with integer
// members (a run's concurrency) share it, and so the wording.
func IntIn(field string, v *int64, def, lo, hi int64) (int, error) {
	if v == nil {
		return int(def), nil
	}
	if *v < lo || *v > hi {
		return 0, FieldErrorf(field, "%s must be between %d and %d", field, lo, hi)
	}
	return int(*v), nil
}
