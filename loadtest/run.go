package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// run is `loadtest run`: it returns the exit code. Canceling ctx (Ctrl-C)
// stops sending, reports what ran, and exits 1.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseRunFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return load.ExitOK
	}
	if err != nil {
		return load.ExitUsage
	}
	// The setup calls' client; the orders go through a shopapi.OrderSender per sale.
	c := shopapi.NewClient(len(cfg.Targets), cfg.Timeout, cfg.AdminToken)
	defer c.Close()

	chosen, code := chooseStrategies(ctx, c, cfg, stderr)
	if code != load.ExitOK {
		return code
	}
	rep := load.NewReport(cfg, time.Now())
	load.PrintHeader(stdout, cfg, chosen)
	for _, st := range chosen {
		if ctx.Err() != nil {
			break
		}
		res := runStrategy(ctx, c, cfg, st, stderr)
		load.PrintResult(stdout, cfg, res)
		rep.Results = append(rep.Results, res)
	}
	if len(rep.Results) > 1 {
		load.PrintComparison(stdout, rep.Results)
	}
	code = load.ExitOK
	if !load.AllPassed(rep.Results) {
		code = load.ExitFail
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "loadtest run: interrupted after %d of %d strategies\n", len(rep.Results), len(chosen))
		code = load.ExitFail
	}
	if cfg.TimelinePath != "" && saveTimelines(ctx, c, cfg, rep.Results, stderr) != nil {
		code = load.ExitFail
	}
	if cfg.JsonPath != "" {
		if err := load.WriteJSON(cfg.JsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "loadtest run: --json: %v\n", err)
			code = load.ExitFail
		} else {
			fmt.Fprintf(stderr, "results written to %s\n", cfg.JsonPath)
		}
	}
	return code
}

// chooseStrategies asks every target which strategies it can run and picks
// the ones --strategy names. A strategy the targets do not know is a usage
// error (exit 2); one they know but cannot run, or a target that does not
// answer, fails the run (exit 1).
func chooseStrategies(ctx context.Context, c *shopapi.Client, cfg load.RunConfig, stderr io.Writer) ([]shopapi.StrategyInfo, int) {
	var known []shopapi.StrategyInfo // from the first target: the sale is created there
	availableOn := map[string]int{}
	for i, t := range cfg.Targets {
		cctx, cancel := context.WithTimeout(ctx, load.SetupTimeout)
		list, err := c.Strategies(cctx, t)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "loadtest run: target %s does not answer: %v\n", t, err)
			return nil, load.ExitFail
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
	everywhere := func(name string) bool { return availableOn[name] == len(cfg.Targets) }
	names := make([]string, len(known))
	for i, st := range known {
		names[i] = st.Name
	}

	if strings.TrimSpace(cfg.Strategy) == "all" {
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
			return nil, load.ExitFail
		}
		return out, load.ExitOK
	}
	var out []shopapi.StrategyInfo
	for _, name := range strings.Split(cfg.Strategy, ",") {
		name = strings.TrimSpace(name)
		i := slices.Index(names, name)
		if i < 0 {
			fmt.Fprintf(stderr, "loadtest run: --strategy: unknown strategy %q; known: all, %s\n", name, strings.Join(names, ", "))
			return nil, load.ExitUsage
		}
		if !everywhere(name) {
			fmt.Fprintf(stderr, "loadtest run: --strategy: %s is not available on every target (needs %s)\n",
				name, strings.Join(known[i].Needs, ", "))
			return nil, load.ExitFail
		}
		out = append(out, known[i])
	}
	return out, load.ExitOK
}

// runStrategy creates the strategy's sale, sends the load, waits for the
// background writes to settle and reads the sale's final view.
func runStrategy(ctx context.Context, c *shopapi.Client, cfg load.RunConfig, st shopapi.StrategyInfo, stderr io.Writer) load.Result {
	req := saleRequestFor(cfg, st)
	if req.Watchdog != nil {
		// Its lease now ends at the TTL whatever the holder is doing: a broken
		// sale is the lesson, not a failure.
		st.Safe = false
	}
	res := load.NewResult(st, cfg.Model())
	setup, cancel := context.WithTimeout(context.WithoutCancel(ctx), load.SetupTimeout)
	created, _, err := c.CreateSale(setup, cfg.Targets[0], req)
	createdAt := time.Now()
	cancel()
	if err != nil {
		return res.Failed(fmt.Sprintf("create sale: %v", err))
	}
	urls := make([]string, len(cfg.Targets))
	for i, t := range cfg.Targets {
		urls[i] = t + "/api/sales/" + strconv.FormatUint(created.ID, 10) + "/orders"
	}
	p := cfg.Plan()
	// Every request that can be in flight may go to one target.
	sender, err := shopapi.NewOrderSender(urls, p.Workers, cfg.Timeout)
	if err != nil {
		return res.Failed(fmt.Sprintf("order URL: %v", err))
	}
	defer sender.Close()
	b := load.NewBuyer(sender, cfg.Targets, created.ID, "lt-", cfg.Guards.TicketRequired)
	// Round robin by buyer index: buyer i goes to target i mod n, whichever
	// worker sends it, so every target gets its share in all models.
	do := func(_ context.Context, i int) shopapi.Answer { return b.Attempt(i%len(urls), i) }

	rec := load.NewRecorder()
	start := time.Now()
	if cfg.Guards.OpensIn > 0 {
		p.Start = load.OpeningOf(created, createdAt, cfg.Guards.OpensIn)
		p.Warm = b.Warm
		rec = load.NewHerdRecorder(p.Start)
		res.Herd = &load.Herd{OpensAt: p.Start.UTC()}
		start = p.Start
	}
	prog := load.StartProgress(stderr, st.Name, expectedRequests(p), rec)
	elapsed := load.Drive(ctx, p, do, rec)
	prog.End()

	figs := rec.Figures()
	res.Measure(figs.All.Hist, figs.All.Kinds, elapsed)
	res.MeasureLayers(figs)
	if cfg.Async() {
		load.FollowQueue(ctx, c, cfg, &res, created.ID, figs, start, stderr)
	}
	readCtx, cancelRead := context.WithTimeout(context.WithoutCancel(ctx), load.SetupTimeout)
	defer cancelRead()
	final, raw, err := c.SettledSale(readCtx, cfg.Targets, created.ID)
	if err != nil {
		res.View.ID = created.ID // for the table's title; the view itself is unknown
		return res.Failed(fmt.Sprintf("read final sale %d: %v", created.ID, err))
	}
	res.Sale, res.View = raw, final
	res.History = load.CheckHistory(readCtx, c, cfg.Targets, created.ID)
	res.Retries = load.ReadRetries(readCtx, c, cfg.Targets, created.ID, res.AnsweredByShop())
	if res.Herd != nil {
		res.Herd.Shop = load.ShopHerd(readCtx, c, cfg.Targets, created.ID, res.AnsweredByShop())
	}
	res.Verdict = load.Verdict(st.Safe, final, res.HardErrors, res.Requests, cfg.MaxErrorRate)
	if res.Queue != nil {
		res.Queue.FillQueueView(final)
		res.Verdict = load.QueueVerdict(res.Verdict, res.Queue)
		if why := load.QueueProblem(res); why != "" {
			fmt.Fprintf(stderr, "loadtest run: %s, sale %d: %s\n", st.Name, created.ID, why)
		}
	}
	return res
}

// saleRequestFor is the sale of st's phase. --no-watchdog reaches only the
// strategies that renew their lease; the others have no watchdog, and an
// older shop (no "renews") is sent nothing new.
func saleRequestFor(cfg load.RunConfig, st shopapi.StrategyInfo) shopapi.SaleRequest {
	g := cfg.Guards
	req := shopapi.SaleRequest{Name: "loadtest " + st.Name, Strategy: st.Name, Stock: cfg.Stock, WorkMS: cfg.WorkMS,
		TTLMS: cfg.TtlMS, Fencing: cfg.Fencing, PerUserLimit: cfg.PerUserLimit,
		OpensInMS: int(g.OpensIn / time.Millisecond), RateLimitUser: g.RateLimitUser, RateLimitIP: g.RateLimitIP,
		TicketRequired: g.TicketRequired, PayWithinMS: cfg.PayWithinMS}
	if cfg.Async() {
		req.OrderMode = load.OrderModeAsync
	}
	if !g.SoldOutCache {
		off := false
		req.SoldOutCache = &off
	}
	if cfg.NoWatchdog && st.Renews {
		off := false
		req.Watchdog = &off
	}
	if cfg.NoQueue && st.Name == "redlock" {
		req.NoQueue = true
	}
	if cfg.Combine && st.Kind == "lock" && !cfg.Async() {
		req.Combine, req.CombineMaxBatch, req.CombineMaxWaitUS = true, cfg.CombineMaxBatch, cfg.CombineMaxWaitUS
	}
	if cfg.StockShards > 1 && st.SplitsStock {
		req.StockShards = cfg.StockShards
	}
	return req
}

// expectedRequests is how many requests p will send when not interrupted.
func expectedRequests(p load.Plan) int {
	if p.Open() && p.Duration > 0 {
		return min(p.Requests, int(math.Ceil(p.Rate*p.Duration.Seconds())))
	}
	return p.Requests
}

// saveTimelines writes the timelines of the results' sales (--timeline).
func saveTimelines(ctx context.Context, c *shopapi.Client, cfg load.RunConfig, results []load.Result, stderr io.Writer) error {
	var ids []uint64
	for _, r := range results {
		var sale struct {
			ID uint64 `json:"id"`
		}
		if json.Unmarshal(r.Sale, &sale) == nil && sale.ID != 0 {
			ids = append(ids, sale.ID)
		}
	}
	files, err := c.SaveTimelines(context.WithoutCancel(ctx), cfg.Targets[0], cfg.TimelinePath, ids)
	for _, f := range files {
		fmt.Fprintf(stderr, "timeline written to %s\n", f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest run: %v\n", err)
	}
	return err
}
