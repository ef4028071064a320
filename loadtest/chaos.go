package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// `loadtest chaos`: a Jepsen-style run. Buyers order on every safe strategy
// (with and without fencing where it has tokens) while a nemesis injects a
// seeded, random schedule of the lab's faults and of network faults; then
// the database is checked against what every buyer was told.

// chaosFlags are the flags of `loadtest chaos`.
type chaosFlags struct {
	targets    string
	replicas   int
	shop       string
	strategy   string
	duration   time.Duration
	seed       uint64
	buyers     int
	stock      int64
	ttlMS      int
	workMS     int
	faults     string
	meanGap    time.Duration
	dsn        string
	redis      string
	redlock    string
	zk         string
	adminToken string
	logDir     string
	nice       int
}

func parseChaosFlags(args []string, stderr io.Writer) (chaosFlags, error) {
	var f chaosFlags
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.targets, "targets", "", "comma-separated shop `URLs` already running with "+config.EnvFaults+"=on; "+
		"empty (the default): the run starts -replicas shops of its own, behind its own TCP proxies, which also allows "+
		"kill_process (it restarts them) and the network faults")
	fs.IntVar(&f.replicas, "replicas", 3, "`number` of shop replicas the run starts (without -targets)")
	fs.StringVar(&f.shop, "shop", "", "shop `binary` the run starts (default: shop beside this binary, as make build puts it)")
	fs.StringVar(&f.strategy, "strategy", "all", "`names`, comma-separated, or all (every safe strategy the replicas have)")
	fs.DurationVar(&f.duration, "duration", time.Minute, "how long the buyers and the nemesis run")
	fs.Uint64Var(&f.seed, "seed", 0, "`seed` of the fault schedule and the buyers; 0 draws one (printed, to replay)")
	fs.IntVar(&f.buyers, "buyers", 3, "concurrent buyers per configuration (strategy, fencing on/off)")
	fs.Int64Var(&f.stock, "stock", 20, "units per sale; a sold-out sale is followed by a new one")
	fs.IntVar(&f.ttlMS, "ttl-ms", 500, "the locks' TTL in ms: stalls are drawn from 1.5 TTL up")
	fs.IntVar(&f.workMS, "work-ms", 2, "simulated work inside the critical section, ms")
	fs.StringVar(&f.faults, "faults", "all", "fault `kinds`, comma-separated, or all: "+strings.Join(chaosKinds, ", "))
	fs.DurationVar(&f.meanGap, "mean-gap", 1500*time.Millisecond, "mean time between two faults")
	fs.StringVar(&f.dsn, "mysql-dsn", config.Get(config.EnvMySQLDSN, config.DefaultMySQLDSN), "the database the checker reads (and the run's shops use) (env "+config.EnvMySQLDSN+")")
	fs.StringVar(&f.redis, "redis-addr", config.Get(config.EnvRedisAddr, config.DefaultRedisAddr), "Redis of the run's shops (env "+config.EnvRedisAddr+")")
	fs.StringVar(&f.redlock, "redlock-addrs", config.Get(config.EnvRedlockAddrs, config.DefaultRedlockAddrs), "RedLock masters of the run's shops (env "+config.EnvRedlockAddrs+")")
	fs.StringVar(&f.zk, "zk-servers", config.Get(config.EnvZKServers, config.DefaultZKServers), "ZooKeeper of the run's shops, one server (env "+config.EnvZKServers+")")
	fs.StringVar(&f.adminToken, "admin-token", config.Get(config.EnvAdminToken, ""), "admin bearer `token` for sales and faults (env "+config.EnvAdminToken+")")
	fs.StringVar(&f.logDir, "log-dir", ".run/chaos", "`directory` of the run's shop logs")
	fs.IntVar(&f.nice, "replica-nice", 0, "`niceness` (0-19) of the replicas the run starts: make test lowers them so the other tests keep their share of the CPU")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: loadtest chaos [flags]\n\nBuyers order on every safe strategy while a seeded schedule of faults runs;\n"+
			"then the database is checked against every answer. Exit 1 when an invariant breaks.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	bad := func(format string, a ...any) (chaosFlags, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(stderr, "loadtest chaos:", err)
		fmt.Fprintln(stderr, "(loadtest chaos -h lists the flags)")
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected arguments: %v", fs.Args())
	case f.duration < 10*time.Second:
		return bad("-duration %v: at least 10s (faults start after 3s and stop 5s before the end)", f.duration)
	case f.replicas < 1 || f.replicas > 16:
		return bad("-replicas %d: want 1 to 16", f.replicas)
	case f.buyers < 1 || f.buyers > 64:
		return bad("-buyers %d: want 1 to 64", f.buyers)
	case f.stock < 1 || f.stock > 1_000_000:
		return bad("-stock %d: want 1 to 1000000", f.stock)
	case f.ttlMS < 100 || f.ttlMS > 10_000:
		return bad("-ttl-ms %d: want 100 to 10000", f.ttlMS)
	case f.workMS < 0 || f.workMS > 1000:
		return bad("-work-ms %d: want 0 to 1000", f.workMS)
	case f.nice < 0 || f.nice > 19:
		return bad("-replica-nice %d: want 0 to 19", f.nice)
	case f.meanGap < 100*time.Millisecond:
		return bad("-mean-gap %v: at least 100ms", f.meanGap)
	}
	if _, err := f.kinds(); err != nil {
		return bad("-faults: %v", err)
	}
	if f.targets != "" {
		if _, err := parseTargets(f.targets); err != nil {
			return bad("-targets: %v", err)
		}
	}
	if f.seed == 0 {
		f.seed = 1 + rand.Uint64N(999_999_999)
	}
	return f, nil
}

// kinds are the fault kinds -faults names.
func (f chaosFlags) kinds() ([]string, error) {
	if f.faults == "all" {
		return chaosKinds, nil
	}
	var out []string
	for _, k := range config.List(f.faults) {
		if !slices.Contains(chaosKinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", k, strings.Join(chaosKinds, ", "))
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return nil, errors.New("no fault kind given")
	}
	return out, nil
}

// replay is the command line that runs the same schedule again.
func (f chaosFlags) replay() string {
	args := []string{"loadtest chaos", "--seed", strconv.FormatUint(f.seed, 10), "--duration", f.duration.String(),
		"--strategy", f.strategy, "--faults", f.faults, "--buyers", strconv.Itoa(f.buyers),
		"--stock", strconv.FormatInt(f.stock, 10), "--ttl-ms", strconv.Itoa(f.ttlMS), "--work-ms", strconv.Itoa(f.workMS),
		"--mean-gap", f.meanGap.String()}
	if f.targets != "" {
		args = append(args, "--targets", f.targets)
	} else {
		args = append(args, "--replicas", strconv.Itoa(f.replicas))
	}
	return strings.Join(args, " ")
}

// chaosCmd is `loadtest chaos`.
func chaosCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseChaosFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadtest chaos: "+format+"\n", a...)
		fmt.Fprintf(stderr, "replay: %s\n", f.replay())
		return exitFail
	}
	db, err := inventory.Open(ctx, inventory.Config{DSN: f.dsn, MaxOpenConns: 4})
	if err != nil {
		return fail("the checker needs the database: %v", err)
	}
	defer inventory.Close(db)
	store := inventory.NewStore(db)

	c := newClient(64, 30*time.Second, f.adminToken)
	defer c.close()
	var cl *cluster
	targets, _ := parseTargets(f.targets)
	backends := backendAddrs{Redis: f.redis, Redlock: config.List(f.redlock), ZK: f.zk}
	if f.targets == "" {
		shop := f.shop
		if shop == "" {
			exe, err := os.Executable()
			if err != nil {
				return fail("finding the shop binary: %v (pass -shop)", err)
			}
			shop = filepath.Join(filepath.Dir(exe), "shop")
		}
		fmt.Fprintf(stdout, "starting %d shop replicas (%s) behind TCP proxies; logs in %s\n", f.replicas, shop, f.logDir)
		cl, err = startCluster(ctx, f.replicas, f.nice, shop, f.logDir, f.dsn, f.adminToken, backends, stderr)
		if err != nil {
			return fail("%v", err)
		}
		defer cl.stop()
		targets = cl.urls()
	}
	configs, err := chooseConfigs(ctx, c, targets[0], f.strategy)
	if errors.Is(err, errBadStrategy) {
		fmt.Fprintf(stderr, "loadtest chaos: %v\n", err)
		return exitUsage
	}
	if err != nil {
		return fail("%v", err)
	}
	kinds, _ := f.kinds()
	kinds, skipped := usableKinds(kinds, configs, cl != nil, backends)
	shape := planShape{Duration: f.duration, Replicas: len(targets), Configs: len(configs), Kinds: kinds,
		Backends: backends.backendNames(), RedlockN: len(backends.Redlock), TTL: time.Duration(f.ttlMS) * time.Millisecond,
		MeanGap: f.meanGap, QuietStart: 3 * time.Second, QuietEnd: 5 * time.Second}
	plan := planFaults(f.seed, shape)

	fmt.Fprintf(stdout, "chaos: seed %d, %v, %d replicas, %d configurations, %d faults planned\n",
		f.seed, f.duration, len(targets), len(configs), len(plan))
	for k, why := range skipped {
		fmt.Fprintf(stdout, "  not injected in this run: %s (%s)\n", k, why)
	}
	for _, cf := range configs {
		if err := cf.openSale(ctx, c, targets, f, 0); err != nil {
			return fail("%s: %v", cf.name(), err)
		}
	}

	outMu := &sync.Mutex{}
	start := time.Now()
	loadCtx, cancel := context.WithTimeout(ctx, f.duration)
	defer cancel()
	nem := &nemesis{c: c, targets: targets, cluster: cl, out: stdout, outMu: outMu, start: start, planned: len(plan),
		injected: map[string]int{}, missed: map[string]int{},
		saleOf: func(i int) uint64 { return configs[i].currentSale() }}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); nem.run(loadCtx, plan) }()
	for i, cf := range configs {
		for b := 0; b < f.buyers; b++ {
			wg.Add(1)
			r := rand.New(rand.NewPCG(f.seed, uint64(i*1000+b)))
			go func() { defer wg.Done(); cf.buy(loadCtx, c, targets, f, r) }()
		}
	}
	wg.Add(1)
	go func() { defer wg.Done(); chaosProgress(loadCtx, stdout, outMu, start, configs, nem) }()
	wg.Wait()
	fmt.Fprintf(stdout, "load over after %v; every fault healed; waiting for the replicas\n", time.Since(start).Round(time.Second))

	if ctx.Err() != nil {
		return fail("interrupted")
	}
	if cl != nil {
		if err := cl.waitAllHealthy(ctx); err != nil {
			return fail("%v", err)
		}
	}
	verdicts := make([]chaosVerdict, len(configs))
	for i, cf := range configs {
		// Reading each sale on every replica also makes each write its
		// queued critical-section records (the overlap evidence).
		drift, err := cf.storeDrift(ctx, c, targets)
		if err != nil {
			return fail("%s: reading the sales: %v", cf.name(), err)
		}
		v, err := cf.check(ctx, store)
		if err != nil {
			return fail("%s: checking the database: %v", cf.name(), err)
		}
		v.StoreDrift = drift
		verdicts[i] = v
	}
	code := printChaos(stdout, f, configs, verdicts, nem, cl)
	return code
}

// errBadStrategy: -strategy names a strategy the replicas do not have.
var errBadStrategy = errors.New("-strategy")

// chooseConfigs reads the strategies and builds the configurations: each
// named (or each safe, for all) available strategy, fenced and unfenced when
// its leases carry tokens.
func chooseConfigs(ctx context.Context, c *client, target, names string) ([]*chaosConfig, error) {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	all, err := c.strategies(ctx, target)
	if err != nil {
		return nil, err
	}
	var chosen []strategyInfo
	if names == "all" {
		for _, s := range all {
			if s.Safe && s.Available {
				chosen = append(chosen, s)
			}
		}
	} else {
		for _, n := range config.List(names) {
			i := slices.IndexFunc(all, func(s strategyInfo) bool { return s.Name == n })
			if i < 0 {
				return nil, fmt.Errorf("%w: unknown strategy %q", errBadStrategy, n)
			}
			if !all[i].Available {
				return nil, fmt.Errorf("-strategy: %s is not available on %s (backends %v)", n, target, all[i].Backends)
			}
			chosen = append(chosen, all[i])
		}
	}
	if len(chosen) == 0 {
		return nil, errors.New("no strategy to run (none safe and available?)")
	}
	var out []*chaosConfig
	for _, s := range chosen {
		fencings := []bool{false}
		if s.Tokens {
			fencings = []bool{true, false}
		}
		for _, fencing := range fencings {
			// Without fencing, a lease that can expire under a stalled
			// holder (ttl, session) is expected to break: counted, not failed.
			hold := s.Safe && (fencing || s.Expiry == "none" || s.Expiry == "connection")
			out = append(out, &chaosConfig{Strategy: s.Name, Fencing: fencing, MustHold: hold,
				ledger: map[uint64]map[string]*userLedger{}, kinds: map[string]int64{},
				hist: hdrhistogram.New(histMinUS, histMaxUS, histSigFigs)})
		}
	}
	return out, nil
}

// usableKinds drops the kinds this run cannot inject, saying why.
func usableKinds(kinds []string, configs []*chaosConfig, owned bool, b backendAddrs) ([]string, map[string]string) {
	has := func(name string) bool {
		return slices.ContainsFunc(configs, func(c *chaosConfig) bool { return c.Strategy == name })
	}
	skipped := map[string]string{}
	var out []string
	for _, k := range kinds {
		switch {
		case ownedOnly[k] && !owned:
			skipped[k] = "the replicas were not started by this run (-targets)"
		case k == chaosExpireZK && !has("zookeeper"):
			skipped[k] = "no zookeeper configuration"
		case k == chaosRestartMstr && (len(b.Redlock) == 0 || !has("redlock")):
			skipped[k] = "no redlock configuration"
		case k == chaosRestartRedis && b.Redis == "":
			skipped[k] = "no Redis"
		default:
			out = append(out, k)
		}
	}
	return out, skipped
}

// openSale creates the configuration's next sale, unless another buyer
// already replaced sold (0: the first one).
func (c *chaosConfig) openSale(ctx context.Context, cl *client, targets []string, f chaosFlags, sold uint64) error {
	c.mu.Lock()
	if c.current != sold {
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	req := saleRequest{Name: "chaos " + c.name() + " seed " + strconv.FormatUint(f.seed, 10), Strategy: c.Strategy,
		Stock: f.stock, WorkMS: f.workMS, TTLMS: f.ttlMS, Fencing: c.Fencing, PerUserLimit: 1}
	var lastErr error
	for _, t := range targets { // a replica may be down: try the next
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		v, _, err := cl.createSale(cctx, t, req)
		cancel()
		if err == nil {
			c.mu.Lock()
			if c.current == sold {
				c.current = v.ID
			}
			c.sales = append(c.sales, v.ID) // checked even if another buyer's sale won
			c.mu.Unlock()
			return nil
		}
		lastErr = err
	}
	return fmt.Errorf("%w: %v", errNoSale, lastErr)
}

func (c *chaosConfig) currentSale() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

// buy orders until ctx ends: a random user of the sale's pool (twice the
// stock: users come back, and per_user_limit 1 must hold), on a random
// replica. A sold-out sale is replaced by a new one.
func (c *chaosConfig) buy(ctx context.Context, cl *client, targets []string, f chaosFlags, r *rand.Rand) {
	for ctx.Err() == nil {
		sale := c.currentSale()
		user := "u" + strconv.Itoa(r.IntN(int(2*f.stock)))
		t0 := time.Now()
		// The request gets its own bound, not ctx: the end of the run must
		// not turn an answer in flight into an unknown one.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		ack, id, kind := cl.chaosOrder(rctx, ordersURL(targets[r.IntN(len(targets))], sale), user)
		cancel()
		c.record(sale, user, ack, id, kind, time.Since(t0))
		switch {
		case kind == kindSoldOut:
			c.create.Lock() // one new sale, not one per buyer
			err := c.openSale(ctx, cl, targets, f, sale)
			c.create.Unlock()
			if err != nil {
				sleepCtx(ctx, 200*time.Millisecond) // a fault is on: try again later
			}
		case ack != ackOrder:
			sleepCtx(ctx, time.Duration(r.IntN(20))*time.Millisecond) // a refusal or a fault: do not spin
		}
	}
}

// chaosProgress prints a line every 10 s.
func chaosProgress(ctx context.Context, out io.Writer, mu *sync.Mutex, start time.Time, configs []*chaosConfig, n *nemesis) {
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var answers, orders int64
		for _, c := range configs {
			c.mu.Lock()
			for k, v := range c.kinds {
				answers += v
				if k == kindOrder {
					orders += v
				}
			}
			c.mu.Unlock()
		}
		n.mu.Lock()
		var faults int
		for _, v := range n.injected {
			faults += v
		}
		n.mu.Unlock()
		mu.Lock()
		fmt.Fprintf(out, "  [%6.1fs] progress: %d answers, %d orders (201), %d faults injected\n",
			time.Since(start).Seconds(), answers, orders, faults)
		mu.Unlock()
	}
}

// printChaos prints the tables and the replay line; it returns the exit code.
func printChaos(out io.Writer, f chaosFlags, configs []*chaosConfig, vs []chaosVerdict, n *nemesis, cl *cluster) int {
	code := exitOK
	fmt.Fprintln(out)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CONFIGURATION\tASSERTED\tSALES\t201\tUNSURE\tSOLD(DB)\tOVERSOLD\tLOST\tDUPLICATES\t201 NO ROW\tROW NO 201\tOVERLAPS\tFENCED\tSTORE DRIFT\tp99 ms\tVERDICT\t")
	for i, c := range configs {
		v := vs[i]
		c.mu.Lock()
		orders, p99 := c.kinds[kindOrder], float64(c.hist.ValueAtQuantile(99))/1000
		c.mu.Unlock()
		broken := v.broken()
		verdict := "PASS"
		switch {
		case len(broken) > 0 && c.MustHold:
			verdict, code = "FAIL: "+strings.Join(broken, ", "), exitFail
		case len(broken) > 0:
			verdict = "broke as expected without fencing: " + strings.Join(broken, ", ")
		case v.Sold == 0 && c.MustHold:
			verdict, code = "FAIL: sold nothing, proved nothing", exitFail
		case !c.MustHold:
			verdict = "held (not asserted)"
		}
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\t\n", c.name(), c.MustHold, v.Sales,
			orders, v.Unknown, v.Sold, v.Oversold, v.LostUpdates, v.Duplicates, v.Missing, v.Phantom, v.Violations,
			v.FencedWrites, v.StoreDrift, p99, verdict)
	}
	tw.Flush()

	fmt.Fprintln(out, "\nanswers by kind (UNSURE: no answer, a timeout or a 5xx; the order may exist):")
	for _, c := range configs {
		c.mu.Lock()
		kinds := make([]string, 0, len(c.kinds))
		for k := range c.kinds {
			kinds = append(kinds, k)
		}
		slices.SortFunc(kinds, func(a, b string) int { // most frequent first
			return cmp.Or(cmp.Compare(c.kinds[b], c.kinds[a]), strings.Compare(a, b))
		})
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, c.kinds[k])
		}
		c.mu.Unlock()
		fmt.Fprintf(out, "  %-22s %s\n", c.name()+":", strings.Join(parts, ", "))
	}

	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tINJECTED\tNOT INJECTED (target down or refused)")
	n.mu.Lock()
	for _, k := range chaosKinds {
		if n.injected[k]+n.missed[k] > 0 {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", k, n.injected[k], n.missed[k])
		}
	}
	n.mu.Unlock()
	tw.Flush()
	if cl != nil {
		for _, r := range cl.replicas {
			if k := r.restartCount(); k > 0 {
				fmt.Fprintf(out, "%s was restarted %d times\n", r.name, k)
			}
		}
	}
	n.mu.Lock()
	injected := 0
	for _, v := range n.injected {
		injected += v
	}
	n.mu.Unlock()
	if injected == 0 && n.planned > 0 {
		fmt.Fprintf(out, "no fault took effect (are the replicas running with %s=on?): the run proved nothing\n", config.EnvFaults)
		code = exitFail
	}
	fmt.Fprintf(out, "\nseed %d; replay this schedule: %s\n", f.seed, f.replay())
	if code != exitOK {
		fmt.Fprintln(out, "chaos: FAIL: an asserted configuration broke or sold nothing, or no fault took effect (see above)")
	} else {
		fmt.Fprintln(out, "chaos: every asserted invariant held")
	}
	return code
}
