package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Bounds of the sale flags: the shop's own (internal/httpapi), checked here
// too so that a typo fails before anything is created.
const (
	maxStock  = 1_000_000
	maxWorkMS = 60_000
	maxTTLMS  = 600_000
	// maxOpensIn and maxRateLimit: opens_in_ms and rate_limit_* bounds.
	maxOpensIn   = time.Hour
	maxRateLimit = 100_000
	// pay_within_ms: 0 (no reservation) or this range.
	minPayWithinMS = 500
	maxPayWithinMS = 86_400_000
)

// Order modes of a sale: answer 201 with the order, or 202 with a ticket.
const (
	orderModeSync  = "sync"
	orderModeAsync = "async"
)

// runConfig is `loadtest run` after parsing and validation.
type runConfig struct {
	targets      []string // base URLs, no trailing slash
	strategy     string   // "all" or a comma-separated list of names
	stock        int64
	buyers       int
	concurrency  int     // closed model workers
	rate         float64 // open model requests/s; 0: closed model
	maxInFlight  int     // open model: most requests in flight
	duration     time.Duration
	workMS       int
	ttlMS        int
	fencing      bool
	noWatchdog   bool // only strategies whose lease renews itself have a watchdog
	perUserLimit int
	maxErrorRate float64 // fraction of requests
	timeout      time.Duration
	closedSet    bool // --concurrency was given
	jsonPath     string
	adminToken   string
	guards       saleGuards
	orderMode    string        // orderModeSync or orderModeAsync
	payWithinMS  int           // reservation window; 0: an order is paid when made
	drainTimeout time.Duration // async: the most to wait for the queue to drain
}

// async reports whether the sales take orders through the queue.
func (c runConfig) async() bool { return c.orderMode == orderModeAsync }

// saleGuards are the sale's options that refuse orders early: the opening,
// the sold-out cache, the rate limits, the purchase ticket.
type saleGuards struct {
	opensIn        time.Duration // the sale opens this long after it is created; 0: at once
	soldOutCache   bool
	rateLimitUser  int // requests/s per user; 0: off
	rateLimitIP    int // requests/s per client IP; 0: off
	ticketRequired bool
}

// model names the load model for the output and the JSON.
func (c runConfig) model() string {
	switch {
	case c.herd():
		return "herd"
	case c.rate > 0:
		return "open"
	}
	return "closed"
}

// herd reports whether every buyer fires at the opening: --opens-in
// without --rate (an open model spread at R/s) or --concurrency (a closed
// one that starts at the opening).
func (c runConfig) herd() bool { return c.guards.opensIn > 0 && c.rate == 0 && !c.closedSet }

// plan is the load shape of one strategy's phase.
func (c runConfig) plan() plan {
	p := plan{requests: c.buyers, workers: c.concurrency, duration: c.duration}
	if c.rate > 0 || c.herd() {
		p.rate, p.workers, p.herd = c.rate, c.maxInFlight, c.herd()
	}
	return p
}

const runSummary = `usage: loadtest run --targets URL[,URL...] [flags]

Creates one sale per strategy on the first target, sends the buyers to all
targets round robin, and prints a table per strategy (and a comparison table
when there are several), with the sale's final state read back from the API,
which reads the database.

Every buyer is a distinct user making exactly ONE order attempt: --buyers is
the number of order requests. Retryable refusals (409 conflict/fenced, 503
lock_timeout/lock_lost) are counted by their code, never retried.

Load models:
  closed (default)  --concurrency workers, each sends its next request when the
                    last one is answered. Latency excludes queueing: coordinated
                    omission is NOT corrected.
  open (--rate R)   request i is sent at start + i/R whatever the answers do;
                    latency runs from that intended send time, so a stall costs
                    every request it delays. Not combinable with --concurrency.
  herd (--opens-in D, no --rate nor --concurrency)
                    the sale opens D after it is created; every buyer is due at
                    the opening, and --max-in-flight senders (connected before
                    it) fire as fast as they are answered. Latency runs from the
                    opening; the report adds the first second after it (answers,
                    latency from the send, answers per layer) and the time to
                    sell out. With --rate or --concurrency the load starts at
                    the opening in that model instead.

Every table counts answers per shop layer (the Seckill-Layer header:
opening, ticket, rate_limit, idempotency, sold_out_cache, lock, database,
store, queue; "unknown" when absent).

Async sales (--order-mode async): a 202 is counted as "accepted" and its
order ticket kept. After the load the run waits (--drain-timeout) for the
sale's queue to drain, then asks GET /api/orders/{ticket} for every ticket:
confirmed, failed (with the reason) or lost (404). The shop limits those
reads per client IP (SECKILL_ORDER_RATE_IP, 30/s by default): a 429 is read
again after a second, so the limit paces the check; with --admin-token the
reads are not limited. The table adds accepted/s, confirmed/s, the
202-to-confirmed p50/p99 and the reconciliation's drift.

Exit codes: 0 ok; 1 a strategy meant to be safe oversold, lost updates or
showed violations, or hard errors (transport, timeouts, HTTP statuses other
than 201/202 and the shop's 403/409/429/503 refusals) exceeded --max-error-rate,
or an async sale's tickets did not all settle, one was lost, or its Redis stock
drifted from the database, or the run failed; 2 bad usage.

Flags:
`

// errUsage marks a usage error whose message has been printed.
var errUsage = errors.New("usage error")

// parseRunFlags parses and validates args. On a problem it prints one line
// naming the flag, then the usage, and returns errUsage (or flag.ErrHelp
// after -h).
func parseRunFlags(args []string, stderr io.Writer) (runConfig, error) {
	var c runConfig
	fs := flag.NewFlagSet("loadtest run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runSummary); fs.PrintDefaults() }
	targets := c.define(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, errUsage // the flag package printed the line and the usage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := c.complete(*targets, fs.Args(), set); err != nil {
		fmt.Fprintf(stderr, "loadtest run: %v\n", err)
		fs.Usage()
		return c, errUsage
	}
	return c, nil
}

// define declares every flag of `loadtest run` on fs, bound to c; --targets,
// which needs parsing, comes back as its text.
func (c *runConfig) define(fs *flag.FlagSet) (targets *string) {
	targets = fs.String("targets", "", "comma-separated shop base URLs, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&c.strategy, "strategy", "all", `strategy name, comma-separated names, or "all": every strategy available on all targets`)
	fs.Int64Var(&c.stock, "stock", 100, "units for sale per strategy (1.."+strconv.Itoa(maxStock)+")")
	fs.IntVar(&c.buyers, "buyers", 2000, "order requests per strategy, one per distinct user")
	fs.IntVar(&c.concurrency, "concurrency", 200, "closed model: workers sending at once")
	fs.Float64Var(&c.rate, "rate", 0, "open model: requests per second (instead of --concurrency)")
	fs.IntVar(&c.maxInFlight, "max-in-flight", 1000, "open model: most requests in flight; later ones wait, and the wait counts in their latency")
	fs.DurationVar(&c.duration, "duration", 0, "stop sending after this long (0: when every buyer has tried); with --rate and no --buyers, buyers = rate x duration")
	fs.IntVar(&c.workMS, "work-ms", 5, "sale option: milliseconds of work inside the critical section")
	fs.IntVar(&c.ttlMS, "ttl-ms", 2000, "sale option: lock TTL in milliseconds")
	fs.BoolVar(&c.fencing, "fencing", false, "sale option: fenced writes (stale lock holders are rejected)")
	fs.BoolVar(&c.noWatchdog, "no-watchdog", false, "sale option: turn off the lease watchdog of the strategies that have one (redis, redlock): "+
		"the lock then expires after --ttl-ms even while held, and they are judged as unsafe")
	fs.IntVar(&c.perUserLimit, "per-user-limit", 1, "sale option: orders per user (0: no limit)")
	c.maxErrorRate = 0.01 // before Var: the flag package records the default then
	fs.Var((*ratioFlag)(&c.maxErrorRate), "max-error-rate", "hard errors allowed, as a `fraction` (0.01) or a percentage (1%) of requests")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "per-request timeout (the shop waits up to 10s for a lock)")
	fs.DurationVar(&c.guards.opensIn, "opens-in", 0, "sale option: the sale opens this long after it is created (the herd; at most 1h)")
	fs.BoolVar(&c.guards.soldOutCache, "sold-out-cache", true, "sale option: once sold out, every replica answers sold_out from memory")
	fs.IntVar(&c.guards.rateLimitUser, "rate-limit-user", 0, "sale option: requests per second per user (0: off)")
	fs.IntVar(&c.guards.rateLimitIP, "rate-limit-ip", 0, "sale option: requests per second per client IP (0: off)")
	fs.BoolVar(&c.guards.ticketRequired, "ticket-required", false, "sale option: orders need a purchase ticket; each buyer asks for one first")
	fs.StringVar(&c.orderMode, "order-mode", orderModeSync, `sale option: "sync" (201 with the order) or "async" (202 with a ticket, `+
		"the order persisted behind a queue; redis-lua-stock): the run then waits for the queue to drain and checks every ticket")
	fs.IntVar(&c.payWithinMS, "pay-within-ms", 0, "sale option: every order is a reservation to pay within this many ms "+
		"("+strconv.Itoa(minPayWithinMS)+".."+strconv.Itoa(maxPayWithinMS)+"; 0: paid when made); nobody pays, so they expire")
	fs.DurationVar(&c.drainTimeout, "drain-timeout", 2*time.Minute, "async: the most to wait, after the load, for the queue to drain and every ticket to settle")
	fs.StringVar(&c.jsonPath, "json", "", "also write the results as JSON to this file")
	// No default shown: the environment's token must not end up in a
	// terminal scrollback through -h.
	fs.StringVar(&c.adminToken, "admin-token", "", "bearer token for creating sales and reading order tickets past the shop's per-IP limit (default: $SECKILL_ADMIN_TOKEN)")
	return targets
}

// complete checks the parsed flags (set: the ones given) and fills in
// what they imply: the targets, the buyers of a timed open run, the admin
// token from the environment. Its error names the flag.
func (c *runConfig) complete(targets string, args []string, set map[string]bool) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (flags only)", args[0])
	}
	var err error
	if c.targets, err = parseTargets(targets); err != nil {
		return fmt.Errorf("--targets: %v", err)
	}
	if err := c.check(set); err != nil {
		return err
	}
	c.closedSet = set["concurrency"]
	if c.rate > 0 && c.duration > 0 && !set["buyers"] {
		c.buyers = int(math.Ceil(c.rate * c.duration.Seconds()))
	}
	if c.buyers < 1 {
		return fmt.Errorf("--buyers must be at least 1, not %d", c.buyers)
	}
	if !set["admin-token"] {
		c.adminToken = os.Getenv("SECKILL_ADMIN_TOKEN")
	}
	return nil
}

// check returns the first value out of its range or combination of flags
// (set: the ones given) that excludes itself.
func (c *runConfig) check(set map[string]bool) error {
	switch {
	case strings.TrimSpace(c.strategy) == "":
		return errors.New("--strategy must name a strategy or be \"all\"")
	case c.stock < 1 || c.stock > maxStock:
		return fmt.Errorf("--stock must be between 1 and %d, not %d", maxStock, c.stock)
	case set["rate"] && set["concurrency"]:
		return errors.New("--rate (open model) and --concurrency (closed model) exclude each other: give one")
	case set["rate"] && (c.rate <= 0 || math.IsInf(c.rate, 0) || math.IsNaN(c.rate)):
		return fmt.Errorf("--rate must be a positive number of requests per second, not %v", c.rate)
	case set["max-in-flight"] && !set["rate"] && (c.guards.opensIn <= 0 || set["concurrency"]):
		return errors.New("--max-in-flight applies to the open model and the herd only: add --rate or --opens-in")
	case c.guards.opensIn < 0 || c.guards.opensIn > maxOpensIn:
		return fmt.Errorf("--opens-in must be between 0 and %v, not %v", maxOpensIn, c.guards.opensIn)
	case c.guards.opensIn > 0 && c.guards.opensIn < time.Millisecond:
		return fmt.Errorf("--opens-in must be at least 1ms, not %v", c.guards.opensIn)
	case c.guards.rateLimitUser < 0 || c.guards.rateLimitUser > maxRateLimit:
		return fmt.Errorf("--rate-limit-user must be between 0 and %d, not %d", maxRateLimit, c.guards.rateLimitUser)
	case c.guards.rateLimitIP < 0 || c.guards.rateLimitIP > maxRateLimit:
		return fmt.Errorf("--rate-limit-ip must be between 0 and %d, not %d", maxRateLimit, c.guards.rateLimitIP)
	case c.maxInFlight < 1:
		return fmt.Errorf("--max-in-flight must be at least 1, not %d", c.maxInFlight)
	case c.concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1, not %d", c.concurrency)
	case c.duration < 0:
		return errors.New("--duration must not be negative")
	case c.workMS < 0 || c.workMS > maxWorkMS:
		return fmt.Errorf("--work-ms must be between 0 and %d, not %d", maxWorkMS, c.workMS)
	case c.ttlMS < 1 || c.ttlMS > maxTTLMS:
		return fmt.Errorf("--ttl-ms must be between 1 and %d, not %d", maxTTLMS, c.ttlMS)
	case c.perUserLimit < 0:
		return fmt.Errorf("--per-user-limit must not be negative, not %d", c.perUserLimit)
	case c.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, not %v", c.timeout)
	case c.orderMode != orderModeSync && c.orderMode != orderModeAsync:
		return fmt.Errorf("--order-mode must be %q or %q, not %q", orderModeSync, orderModeAsync, c.orderMode)
	case c.async() && strings.TrimSpace(c.strategy) == "all":
		return errors.New(`--order-mode async: name the strategy (e.g. redis-lua-stock); "all" would ask it of strategies that cannot queue orders`)
	case c.payWithinMS != 0 && (c.payWithinMS < minPayWithinMS || c.payWithinMS > maxPayWithinMS):
		return fmt.Errorf("--pay-within-ms must be 0 or between %d and %d, not %d", minPayWithinMS, maxPayWithinMS, c.payWithinMS)
	case c.drainTimeout <= 0:
		return fmt.Errorf("--drain-timeout must be positive, not %v", c.drainTimeout)
	}
	return nil
}

// parseTargets splits and checks --targets.
func parseTargets(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimRight(strings.TrimSpace(t), "/")
		if t == "" {
			continue
		}
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not an http(s) base URL like http://127.0.0.1:8080", t)
		}
		if u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("%q: give the base URL only, without a path or query", t)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New("at least one shop URL is required, e.g. --targets http://127.0.0.1:8080")
	}
	return out, nil
}

// ratioFlag is a fraction given as "0.01" or "1%".
type ratioFlag float64

func (r *ratioFlag) String() string {
	if r == nil {
		return ""
	}
	return strconv.FormatFloat(float64(*r)*100, 'g', -1, 64) + "%"
}

func (r *ratioFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return errors.New("want a fraction (0.01) or a percentage (1%)")
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > 1 || math.IsNaN(v) {
		return errors.New("must be between 0 and 1 (0% and 100%); for 1% write 0.01 or 1%")
	}
	*r = ratioFlag(v)
	return nil
}
