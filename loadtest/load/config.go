package load

import (
	"time"
)

// Bounds of the sale flags: the shop's own (internal/httpapi), checked here
// too so that a typo fails before anything is created.
const (
	MaxStock  = 1_000_000
	MaxWorkMS = 60_000
	MaxTTLMS  = 600_000
	// MaxOpensIn and MaxRateLimit: opens_in_ms and rate_limit_* bounds.
	MaxOpensIn   = time.Hour
	MaxRateLimit = 100_000
	// pay_within_ms: 0 (no reservation) or this range.
	MinPayWithinMS = 500
	MaxPayWithinMS = 86_400_000
)

// Order modes of a sale: answer 201 with the order, or 202 with a ticket.
const (
	OrderModeSync  = "sync"
	OrderModeAsync = "async"
)

// RunConfig is `loadtest run` after parsing and validation.
type RunConfig struct {
	Targets      []string // base URLs, no trailing slash
	Strategy     string   // "all" or a comma-separated list of names
	Stock        int64
	Buyers       int
	Concurrency  int     // closed model workers
	Rate         float64 // open model requests/s; 0: closed model
	MaxInFlight  int     // open model: most requests in flight
	Duration     time.Duration
	WorkMS       int
	TtlMS        int
	Fencing      bool
	NoWatchdog   bool // only strategies whose lease renews itself have a watchdog
	NoQueue      bool // redlock only: every waiter polls the masters itself (the herd livelock)
	PerUserLimit int
	MaxErrorRate float64 // fraction of requests
	Timeout      time.Duration
	ClosedSet    bool // --concurrency was given
	JsonPath     string
	// TimelinePath (--timeline) saves each sale's timeline.html there.
	TimelinePath string
	AdminToken   string
	Guards       SaleGuards
	OrderMode    string // OrderModeSync or OrderModeAsync
	PayWithinMS  int    // reservation window; 0: an order is paid when made
	// Combine sells the orders waiting for a lock as batches (the
	// strategies that take one); 0 batch or wait: the shop's default.
	Combine          bool
	CombineMaxBatch  int
	CombineMaxWaitUS int
	// StockShards splits each sale's stock into that many shards (1: one).
	StockShards  int
	DrainTimeout time.Duration // async: the most to wait for the queue to drain
}

// Async reports whether the sales take orders through the queue.
func (c RunConfig) Async() bool { return c.OrderMode == OrderModeAsync }

// SaleGuards are the sale's options that refuse orders early: the opening,
// the sold-out cache, the rate limits, the purchase ticket.
type SaleGuards struct {
	OpensIn        time.Duration // the sale opens this long after it is created; 0: at once
	SoldOutCache   bool
	RateLimitUser  int // requests/s per user; 0: off
	RateLimitIP    int // requests/s per client IP; 0: off
	TicketRequired bool
}

// Model names the load model for the output and the JSON.
func (c RunConfig) Model() string {
	switch {
	case c.herd():
		return "herd"
	case c.Rate > 0:
		return "open"
	}
	return "closed"
}

// herd reports whether every buyer fires at the opening: --opens-in
// without --rate (an open model spread at R/s) or --concurrency (a closed
// one that starts at the opening).
func (c RunConfig) herd() bool { return c.Guards.OpensIn > 0 && c.Rate == 0 && !c.ClosedSet }

// Plan is the load shape of one strategy's phase.
func (c RunConfig) Plan() Plan {
	p := Plan{Requests: c.Buyers, Workers: c.Concurrency, Duration: c.Duration}
	if c.Rate > 0 || c.herd() {
		p.Rate, p.Workers, p.herd = c.Rate, c.MaxInFlight, c.herd()
	}
	return p
}

// SetupTimeout bounds each setup call (strategies, create sale, final view).
// Creating a sale can build a strategy's first connection (ZooKeeper session,
// RedLock clients), hence not a second.
const SetupTimeout = 30 * time.Second
