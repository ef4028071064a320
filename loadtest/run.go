package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// setupTimeout bounds each setup call (strategies, create sale, final view).
// Creating a sale can build a strategy's first connection (ZooKeeper session,
// RedLock clients), hence not a second.
const setupTimeout = 30 * time.Second

// run is `loadtest run`: it returns the exit code. Canceling ctx (Ctrl-C)
// stops sending, reports what ran, and exits 1.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseRunFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	// The setup calls' client; the orders go through a shopapi.OrderSender per sale.
	c := shopapi.NewClient(len(cfg.targets), cfg.timeout, cfg.adminToken)
	defer c.Close()

	chosen, code := chooseStrategies(ctx, c, cfg, stderr)
	if code != exitOK {
		return code
	}
	rep := newReport(cfg, time.Now())
	printHeader(stdout, cfg, chosen)
	for _, st := range chosen {
		if ctx.Err() != nil {
			break
		}
		res := runStrategy(ctx, c, cfg, st, stderr)
		printResult(stdout, cfg, res)
		rep.Results = append(rep.Results, res)
	}
	if len(rep.Results) > 1 {
		printComparison(stdout, rep.Results)
	}
	code = exitCode(rep.Results)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "loadtest run: interrupted after %d of %d strategies\n", len(rep.Results), len(chosen))
		code = exitFail
	}
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "loadtest run: --json: %v\n", err)
			code = exitFail
		} else {
			fmt.Fprintf(stderr, "results written to %s\n", cfg.jsonPath)
		}
	}
	return code
}

// chooseStrategies asks every target which strategies it can run and picks
// the ones --strategy names. A strategy the targets do not know is a usage
// error (exit 2); one they know but cannot run, or a target that does not
// answer, fails the run (exit 1).
func chooseStrategies(ctx context.Context, c *shopapi.Client, cfg runConfig, stderr io.Writer) ([]shopapi.StrategyInfo, int) {
	var known []shopapi.StrategyInfo // from the first target: the sale is created there
	availableOn := map[string]int{}
	for i, t := range cfg.targets {
		cctx, cancel := context.WithTimeout(ctx, setupTimeout)
		list, err := c.Strategies(cctx, t)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "loadtest run: target %s does not answer: %v\n", t, err)
			return nil, exitFail
		}
		if i == 0 {
			known = list
		}
		for _, st := range list {
			if st.Available {
				availableOn[st.Name]++
			}
		}
	}
	// Buyers go to every target, so a strategy must run on all of them: on
	// the others every order would be a 503 strategy_unavailable.
	everywhere := func(name string) bool { return availableOn[name] == len(cfg.targets) }
	names := make([]string, len(known))
	for i, st := range known {
		names[i] = st.Name
	}

	if strings.TrimSpace(cfg.strategy) == "all" {
		var out, skipped []shopapi.StrategyInfo
		for _, st := range known {
			if everywhere(st.Name) {
				out = append(out, st)
			} else {
				skipped = append(skipped, st)
			}
		}
		for _, st := range skipped {
			fmt.Fprintf(stderr, "skipping %s: not available on every target (needs %s)\n", st.Name, strings.Join(st.Needs, ", "))
		}
		if len(out) == 0 {
			fmt.Fprintln(stderr, "loadtest run: no strategy is available on every target")
			return nil, exitFail
		}
		return out, exitOK
	}
	var out []shopapi.StrategyInfo
	for _, name := range strings.Split(cfg.strategy, ",") {
		name = strings.TrimSpace(name)
		i := slices.Index(names, name)
		if i < 0 {
			fmt.Fprintf(stderr, "loadtest run: --strategy: unknown strategy %q; known: all, %s\n", name, strings.Join(names, ", "))
			return nil, exitUsage
		}
		if !everywhere(name) {
			fmt.Fprintf(stderr, "loadtest run: --strategy: %s is not available on every target (needs %s)\n",
				name, strings.Join(known[i].Needs, ", "))
			return nil, exitFail
		}
		out = append(out, known[i])
	}
	return out, exitOK
}

// runStrategy creates the strategy's sale, sends the load, waits for the
// background writes to settle and reads the sale's final view.
func runStrategy(ctx context.Context, c *shopapi.Client, cfg runConfig, st shopapi.StrategyInfo, stderr io.Writer) Result {
	req := saleRequestFor(cfg, st)
	if req.Watchdog != nil {
		// Its lease now ends at the TTL whatever the holder is doing: a broken
		// sale is the lesson, not a failure.
		st.Safe = false
	}
	res := newResult(st, cfg.model())
	setup, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupTimeout)
	created, _, err := c.CreateSale(setup, cfg.targets[0], req)
	createdAt := time.Now()
	cancel()
	if err != nil {
		return res.failed(fmt.Sprintf("create sale: %v", err))
	}
	urls := make([]string, len(cfg.targets))
	for i, t := range cfg.targets {
		urls[i] = t + "/api/sales/" + strconv.FormatUint(created.ID, 10) + "/orders"
	}
	p := cfg.plan()
	// Every request that can be in flight may go to one target.
	sender, err := shopapi.NewOrderSender(urls, p.workers, cfg.timeout)
	if err != nil {
		return res.failed(fmt.Sprintf("order URL: %v", err))
	}
	defer sender.Close()
	b := newBuyer(sender, cfg.targets, created.ID, "lt-", cfg.guards.ticketRequired)
	// Round robin by buyer index: buyer i goes to target i mod n, whichever
	// worker sends it, so every target gets its share in all models.
	do := func(_ context.Context, i int) shopapi.Answer { return b.attempt(i%len(urls), i) }

	rec := newRecorder()
	start := time.Now()
	if cfg.guards.opensIn > 0 {
		p.start = openingOf(created, createdAt, cfg.guards.opensIn)
		p.warm = b.warm
		rec = newHerdRecorder(p.start)
		res.Herd = &Herd{OpensAt: p.start.UTC()}
		start = p.start
	}
	prog := startProgress(stderr, st.Name, expectedRequests(p), rec)
	elapsed := drive(ctx, p, do, rec)
	prog.end()

	figs := rec.figures()
	res.measure(figs.all.hist, figs.all.kinds, elapsed)
	res.measureLayers(figs)
	if cfg.async() {
		followQueue(ctx, c, cfg, &res, created.ID, figs, start, stderr)
	}
	readCtx, cancelRead := context.WithTimeout(context.WithoutCancel(ctx), setupTimeout)
	defer cancelRead()
	final, raw, err := c.SettledSale(readCtx, cfg.targets, created.ID)
	if err != nil {
		res.view.ID = created.ID // for the table's title; the view itself is unknown
		return res.failed(fmt.Sprintf("read final sale %d: %v", created.ID, err))
	}
	res.Sale, res.view = raw, final
	res.Verdict = verdict(st.Safe, final, res.HardErrors, res.Requests, cfg.maxErrorRate)
	if res.Queue != nil {
		res.Queue.fillQueueView(final)
		res.Verdict = queueVerdict(res.Verdict, res.Queue)
		if why := queueProblem(res); why != "" {
			fmt.Fprintf(stderr, "loadtest run: %s, sale %d: %s\n", st.Name, created.ID, why)
		}
	}
	return res
}

// saleRequestFor is the sale of st's phase. --no-watchdog reaches only the
// strategies that renew their lease; the others have no watchdog, and an
// older shop (no "renews") is sent nothing new.
func saleRequestFor(cfg runConfig, st shopapi.StrategyInfo) shopapi.SaleRequest {
	g := cfg.guards
	req := shopapi.SaleRequest{Name: "loadtest " + st.Name, Strategy: st.Name, Stock: cfg.stock, WorkMS: cfg.workMS,
		TTLMS: cfg.ttlMS, Fencing: cfg.fencing, PerUserLimit: cfg.perUserLimit,
		OpensInMS: int(g.opensIn / time.Millisecond), RateLimitUser: g.rateLimitUser, RateLimitIP: g.rateLimitIP,
		TicketRequired: g.ticketRequired, PayWithinMS: cfg.payWithinMS}
	if cfg.async() {
		req.OrderMode = orderModeAsync
	}
	if !g.soldOutCache {
		off := false
		req.SoldOutCache = &off
	}
	if cfg.noWatchdog && st.Renews {
		off := false
		req.Watchdog = &off
	}
	return req
}

// expectedRequests is how many requests p will send when not interrupted.
func expectedRequests(p plan) int {
	if p.open() && p.duration > 0 {
		return min(p.requests, int(math.Ceil(p.rate*p.duration.Seconds())))
	}
	return p.requests
}
