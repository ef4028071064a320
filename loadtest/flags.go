package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
)

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
func parseRunFlags(args []string, stderr io.Writer) (load.RunConfig, error) {
	var c load.RunConfig
	fs := flag.NewFlagSet("loadtest run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runSummary); fs.PrintDefaults() }
	targets := defineRunFlags(&c, fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, errUsage // the flag package printed the line and the usage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := completeRunConfig(&c, *targets, fs.Args(), set); err != nil {
		fmt.Fprintf(stderr, "loadtest run: %v\n", err)
		fs.Usage()
		return c, errUsage
	}
	return c, nil
}

// defineRunFlags declares every flag of `loadtest run` on fs, bound to c; --targets,
// which needs parsing, comes back as its text.
func defineRunFlags(c *load.RunConfig, fs *flag.FlagSet) (targets *string) {
	targets = fs.String("targets", "", "comma-separated shop base URLs, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&c.Strategy, "strategy", "all", `strategy name, comma-separated names, or "all": every strategy available on all targets`)
	fs.Int64Var(&c.Stock, "stock", 100, "units for sale per strategy (1.."+strconv.Itoa(load.MaxStock)+")")
	fs.IntVar(&c.Buyers, "buyers", 2000, "order requests per strategy, one per distinct user")
	fs.IntVar(&c.Concurrency, "concurrency", 200, "closed model: workers sending at once")
	fs.Float64Var(&c.Rate, "rate", 0, "open model: requests per second (instead of --concurrency)")
	fs.IntVar(&c.MaxInFlight, "max-in-flight", 1000, "open model: most requests in flight; later ones wait, and the wait counts in their latency")
	fs.DurationVar(&c.Duration, "duration", 0, "stop sending after this long (0: when every buyer has tried); with --rate and no --buyers, buyers = rate x duration")
	fs.IntVar(&c.WorkMS, "work-ms", 5, "sale option: milliseconds of work inside the critical section")
	fs.IntVar(&c.TtlMS, "ttl-ms", 2000, "sale option: lock TTL in milliseconds")
	fs.BoolVar(&c.Fencing, "fencing", false, "sale option: fenced writes (stale lock holders are rejected)")
	fs.BoolVar(&c.NoWatchdog, "no-watchdog", false, "sale option: turn off the lease watchdog of the strategies that have one (redis, redlock): "+
		"the lock then expires after --ttl-ms even while held, and they are judged as unsafe")
	fs.BoolVar(&c.NoQueue, "no-queue", false, "sale option, redlock only: every waiter polls the masters itself, without the "+
		"per-process queue and the backoff after a split round (the herd livelock of the lesson redlock-herd)")
	fs.IntVar(&c.PerUserLimit, "per-user-limit", 1, "sale option: orders per user (0: no limit)")
	fs.BoolVar(&c.Combine, "combine", false, "sale option: sell the orders waiting on one replica for the lock as a batch "+
		"(one acquisition, one transaction; the strategies that take a lock, sync mode)")
	fs.IntVar(&c.CombineMaxBatch, "combine-max-batch", 0, "sale option with --combine: most buyers in a batch (0: the shop's default, 100)")
	fs.IntVar(&c.CombineMaxWaitUS, "combine-max-wait-us", 0, "sale option with --combine: most microseconds a batch gathers before it asks for the lock (0: the shop's default, 500)")
	fs.IntVar(&c.StockShards, "stock-shards", 1, "sale option: split the stock into N shards sold at once (库存分段; 1..64, "+
		"strategies that split it: db-conditional, redis-lua-stock; sync mode)")
	c.MaxErrorRate = 0.01 // before Var: the flag package records the default then
	fs.Var((*ratioFlag)(&c.MaxErrorRate), "max-error-rate", "hard errors allowed, as a `fraction` (0.01) or a percentage (1%) of requests")
	fs.DurationVar(&c.Timeout, "timeout", 30*time.Second, "per-request timeout (the shop waits up to 10s for a lock)")
	fs.DurationVar(&c.Guards.OpensIn, "opens-in", 0, "sale option: the sale opens this long after it is created (the herd; at most 1h)")
	fs.BoolVar(&c.Guards.SoldOutCache, "sold-out-cache", true, "sale option: once sold out, every replica answers sold_out from memory")
	fs.IntVar(&c.Guards.RateLimitUser, "rate-limit-user", 0, "sale option: requests per second per user (0: off)")
	fs.IntVar(&c.Guards.RateLimitIP, "rate-limit-ip", 0, "sale option: requests per second per client IP (0: off)")
	fs.BoolVar(&c.Guards.TicketRequired, "ticket-required", false, "sale option: orders need a purchase ticket; each buyer asks for one first")
	fs.StringVar(&c.OrderMode, "order-mode", load.OrderModeSync, `sale option: "sync" (201 with the order) or "async" (202 with a ticket, `+
		"the order persisted behind a queue; redis-lua-stock): the run then waits for the queue to drain and checks every ticket")
	fs.IntVar(&c.PayWithinMS, "pay-within-ms", 0, "sale option: every order is a reservation to pay within this many ms "+
		"("+strconv.Itoa(load.MinPayWithinMS)+".."+strconv.Itoa(load.MaxPayWithinMS)+"; 0: paid when made); nobody pays, so they expire")
	fs.DurationVar(&c.DrainTimeout, "drain-timeout", 2*time.Minute, "async: the most to wait, after the load, for the queue to drain and every ticket to settle")
	fs.StringVar(&c.JsonPath, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&c.TimelinePath, "timeline", "", "save each sale's lock timeline as a self-contained HTML `file` (several sales: file-<sale id>.html)")
	// No default shown: the environment's token must not end up in a
	// terminal scrollback through -h.
	fs.StringVar(&c.AdminToken, "admin-token", "", "bearer token for creating sales and reading order tickets past the shop's per-IP limit (default: $SECKILL_ADMIN_TOKEN)")
	return targets
}

// completeRunConfig checks the parsed flags (set: the ones given) and fills in
// what they imply: the targets, the buyers of a timed open run, the admin
// token from the environment. Its error names the flag.
func completeRunConfig(c *load.RunConfig, targets string, args []string, set map[string]bool) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (flags only)", args[0])
	}
	var err error
	if c.Targets, err = load.ParseTargets(targets); err != nil {
		return fmt.Errorf("--targets: %v", err)
	}
	if err := checkRunConfig(c, set); err != nil {
		return err
	}
	c.ClosedSet = set["concurrency"]
	if c.Rate > 0 && c.Duration > 0 && !set["buyers"] {
		c.Buyers = int(math.Ceil(c.Rate * c.Duration.Seconds()))
	}
	if c.Buyers < 1 {
		return fmt.Errorf("--buyers must be at least 1, not %d", c.Buyers)
	}
	if !set["admin-token"] {
		c.AdminToken = os.Getenv("SECKILL_ADMIN_TOKEN")
	}
	return nil
}

// checkRunConfig returns the first value out of its range or combination of flags
// (set: the ones given) that excludes itself.
func checkRunConfig(c *load.RunConfig, set map[string]bool) error {
	switch {
	case strings.TrimSpace(c.Strategy) == "":
		return errors.New("--strategy must name a strategy or be \"all\"")
	case c.Stock < 1 || c.Stock > load.MaxStock:
		return fmt.Errorf("--stock must be between 1 and %d, not %d", load.MaxStock, c.Stock)
	case set["rate"] && set["concurrency"]:
		return errors.New("--rate (open model) and --concurrency (closed model) exclude each other: give one")
	case set["rate"] && (c.Rate <= 0 || math.IsInf(c.Rate, 0) || math.IsNaN(c.Rate)):
		return fmt.Errorf("--rate must be a positive number of requests per second, not %v", c.Rate)
	case set["max-in-flight"] && !set["rate"] && (c.Guards.OpensIn <= 0 || set["concurrency"]):
		return errors.New("--max-in-flight applies to the open model and the herd only: add --rate or --opens-in")
	case c.Guards.OpensIn < 0 || c.Guards.OpensIn > load.MaxOpensIn:
		return fmt.Errorf("--opens-in must be between 0 and %v, not %v", load.MaxOpensIn, c.Guards.OpensIn)
	case c.Guards.OpensIn > 0 && c.Guards.OpensIn < time.Millisecond:
		return fmt.Errorf("--opens-in must be at least 1ms, not %v", c.Guards.OpensIn)
	case c.Guards.RateLimitUser < 0 || c.Guards.RateLimitUser > load.MaxRateLimit:
		return fmt.Errorf("--rate-limit-user must be between 0 and %d, not %d", load.MaxRateLimit, c.Guards.RateLimitUser)
	case c.Guards.RateLimitIP < 0 || c.Guards.RateLimitIP > load.MaxRateLimit:
		return fmt.Errorf("--rate-limit-ip must be between 0 and %d, not %d", load.MaxRateLimit, c.Guards.RateLimitIP)
	case c.MaxInFlight < 1:
		return fmt.Errorf("--max-in-flight must be at least 1, not %d", c.MaxInFlight)
	case c.Concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1, not %d", c.Concurrency)
	case c.Duration < 0:
		return errors.New("--duration must not be negative")
	case c.WorkMS < 0 || c.WorkMS > load.MaxWorkMS:
		return fmt.Errorf("--work-ms must be between 0 and %d, not %d", load.MaxWorkMS, c.WorkMS)
	case c.TtlMS < 1 || c.TtlMS > load.MaxTTLMS:
		return fmt.Errorf("--ttl-ms must be between 1 and %d, not %d", load.MaxTTLMS, c.TtlMS)
	case c.PerUserLimit < 0:
		return fmt.Errorf("--per-user-limit must not be negative, not %d", c.PerUserLimit)
	case c.Timeout <= 0:
		return fmt.Errorf("--timeout must be positive, not %v", c.Timeout)
	case c.OrderMode != load.OrderModeSync && c.OrderMode != load.OrderModeAsync:
		return fmt.Errorf("--order-mode must be %q or %q, not %q", load.OrderModeSync, load.OrderModeAsync, c.OrderMode)
	case c.Async() && strings.TrimSpace(c.Strategy) == "all":
		return errors.New(`--order-mode async: name the strategy (e.g. redis-lua-stock); "all" would ask it of strategies that cannot queue orders`)
	case c.PayWithinMS != 0 && (c.PayWithinMS < load.MinPayWithinMS || c.PayWithinMS > load.MaxPayWithinMS):
		return fmt.Errorf("--pay-within-ms must be 0 or between %d and %d, not %d", load.MinPayWithinMS, load.MaxPayWithinMS, c.PayWithinMS)
	case c.DrainTimeout <= 0:
		return fmt.Errorf("--drain-timeout must be positive, not %v", c.DrainTimeout)
	case !c.Combine && (c.CombineMaxBatch != 0 || c.CombineMaxWaitUS != 0):
		return errors.New("--combine-max-batch and --combine-max-wait-us need --combine")
	case c.CombineMaxBatch < 0 || c.CombineMaxBatch > 1000:
		return fmt.Errorf("--combine-max-batch must be between 1 and 1000 (0: the shop's default), not %d", c.CombineMaxBatch)
	case c.CombineMaxWaitUS < 0 || c.CombineMaxWaitUS > 100_000:
		return fmt.Errorf("--combine-max-wait-us must be between 1 and 100000 (0: the shop's default), not %d", c.CombineMaxWaitUS)
	case c.Combine && c.Async():
		return errors.New("--combine needs --order-mode sync: in async mode the queue already batches the orders")
	case c.StockShards < 0 || c.StockShards > 64: // 0: a config built without the flag, one shard
		return fmt.Errorf("--stock-shards must be between 1 and 64, not %d", c.StockShards)
	case c.StockShards > 1 && strings.TrimSpace(c.Strategy) == "all":
		return errors.New(`--stock-shards above 1: name the strategy (db-conditional or redis-lua-stock); "all" would ask it of strategies that read the one stock they write`)
	case c.StockShards > 1 && c.Async():
		return errors.New("--stock-shards above 1 needs --order-mode sync: the queue's script takes its unit from the one stock key")
	}
	return nil
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
