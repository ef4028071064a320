package chaos

import (
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
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/zkensemble"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// `loadtest chaos`: a Jepsen-style run. Buyers order on every safe strategy
// (with and without fencing where it has tokens) while a nemesis injects a
// seeded, random schedule of the lab's faults and of network faults; then
// the database is checked against what every buyer was told.

// Command is `loadtest chaos`.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := parseChaosFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return load.ExitOK
	}
	if err != nil {
		return load.ExitUsage
	}
	run := &chaosRun{f: f, stdout: stdout, stderr: stderr}
	defer run.close()
	if err := run.open(ctx); err != nil {
		return run.fail("%v", err)
	}
	run.probeQueue(ctx)
	defer run.restoreDurability(ctx)
	configs, err := chooseConfigs(ctx, run.c, run.targets[0], f.strategy, run.queued, f.fencedOnly, f.combine)
	if errors.Is(err, errBadStrategy) {
		fmt.Fprintf(stderr, "loadtest chaos: %v\n", err)
		return load.ExitUsage
	}
	if err != nil {
		return run.fail("%v", err)
	}
	plan := run.plan(configs)
	for _, cf := range configs {
		if err := cf.openSale(ctx, run.c, run.targets, f, 0); err != nil {
			return run.fail("%s: %v", cf.name(), err)
		}
	}
	nem := run.load(ctx, configs, plan)
	if ctx.Err() != nil {
		return run.fail("interrupted")
	}
	verdicts, err := run.check(ctx, configs)
	if err != nil {
		return run.fail("%v", err)
	}
	return printChaos(stdout, f, configs, verdicts, nem, run.cl)
}

// probeQueue asks the first replica for the durability of the stream's
// Redis: an answer means the replicas have the queue.
func (run *chaosRun) probeQueue(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, load.SetupTimeout)
	defer cancel()
	mode, err := run.c.Durability(ctx, run.targets[0])
	run.queued, run.foundDurability = err == nil, mode
}

// restoreDurability puts back the durability the run found: the nemesis
// changed it before each Redis restart.
func (run *chaosRun) restoreDurability(ctx context.Context) {
	if !run.queued || len(run.restarts.list()) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for _, t := range run.targets {
		if err := run.c.SetDurability(ctx, t, run.foundDurability); err == nil {
			return
		}
	}
	fmt.Fprintf(run.stderr, "loadtest chaos: could not put the durability of Redis back to %s\n", run.foundDurability)
}

// chaosRun is what one chaos run opens: the checker's database, the
// buyers' client and, without -targets, its own cluster of replicas.
type chaosRun struct {
	f              chaosFlags
	stdout, stderr io.Writer

	closeDB  func() error // the checker's database
	store    *inventory.Store
	c        *shopapi.Client
	cl       *cluster // nil with -targets
	targets  []string
	backends backendAddrs
	ensemble zkensemble.Ensemble // -zk-ensemble: the servers kill_zk_server kills
	// queued: the replicas have the queue (GET /api/queue/durability
	// answers); foundDurability is the mode the run puts back at its end.
	queued          bool
	foundDurability string
	restarts        restartLog // restarts of the default Redis, with their mode
}

// open connects to the database and, without -targets, starts the
// replicas; run.targets are then the shops to buy from.
func (run *chaosRun) open(ctx context.Context) error {
	f := run.f
	db, err := inventory.Open(ctx, inventory.Config{DSN: f.dsn, MaxOpenConns: 4})
	if err != nil {
		return fmt.Errorf("the checker needs the database: %w", err)
	}
	run.closeDB, run.store = func() error { return inventory.Close(db) }, inventory.NewStore(db)
	run.c = shopapi.NewClient(64, 30*time.Second, f.adminToken)
	run.targets, _ = load.ParseTargets(f.targets) // checked by parseChaosFlags
	run.backends = backendAddrs{Redis: f.redis, Redlock: config.List(f.redlock), ZK: config.List(f.zk), Etcd: f.etcd,
		Sentinels: config.List(f.sentinels), SentinelMaster: f.sentMaster, ZKEnsemble: f.zkEnsemble}
	if f.zkEnsemble {
		dir, err := filepath.Abs(f.svcDir)
		if err != nil {
			return fmt.Errorf("-services-dir: %w", err)
		}
		run.ensemble = zkensemble.Ensemble{Servers: run.backends.ZK, Dir: dir}
	}
	if f.targets != "" {
		return nil
	}
	shop, err := shopBinary(f.shop)
	if err != nil {
		return err
	}
	fmt.Fprintf(run.stdout, "starting %d shop replicas (%s) behind TCP proxies; logs in %s\n", f.replicas, shop, f.logDir)
	run.cl, err = startCluster(ctx, f.replicas, f.nice, shop, f.logDir, f.dsn, f.adminToken, run.backends, run.stderr)
	if err != nil {
		return err
	}
	run.targets = run.cl.urls()
	return nil
}

// shopBinary is -shop, or else the shop beside this binary.
func shopBinary(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the shop binary: %w (pass -shop)", err)
	}
	return filepath.Join(filepath.Dir(exe), "shop"), nil
}

// close stops what open started, in order: the replicas (while the
// database they write is still reachable to them), the client, then the
// checker's database.
func (run *chaosRun) close() {
	if run.cl != nil {
		run.cl.stop()
	}
	if run.c != nil {
		run.c.Close()
	}
	if run.closeDB != nil {
		run.closeDB()
	}
}

// fail prints the reason and the replay line; it returns the exit code.
func (run *chaosRun) fail(format string, a ...any) int {
	fmt.Fprintf(run.stderr, "loadtest chaos: "+format+"\n", a...)
	fmt.Fprintf(run.stderr, "replay: %s\n", run.f.replay())
	return load.ExitFail
}

// plan draws the fault schedule for the configurations and prints its
// header: what runs, and which fault kinds this run cannot inject.
func (run *chaosRun) plan(configs []*chaosConfig) []faultEvent {
	f := run.f
	kinds, _ := f.kinds()
	kinds, skipped := usableKinds(kinds, configs, run.cl != nil, run.backends)
	shape := planShape{Duration: f.duration, Replicas: len(run.targets), Configs: len(configs), Kinds: kinds,
		Backends: run.backends.backendNames(), RedlockN: len(run.backends.Redlock), TTL: time.Duration(f.ttlMS) * time.Millisecond,
		MeanGap: f.meanGap, QuietStart: chaosQuietStart, QuietEnd: chaosQuietEnd, ZKServers: len(run.ensemble.Servers)}
	for i, c := range configs {
		if c.RedisLock {
			shape.RedisCfgs = append(shape.RedisCfgs, i)
		}
	}
	plan := planFaults(f.seed, shape)
	fmt.Fprintf(run.stdout, "chaos: seed %d, %v, %d replicas, %d configurations, %d faults planned\n",
		f.seed, f.duration, len(run.targets), len(configs), len(plan))
	for k, why := range skipped {
		fmt.Fprintf(run.stdout, "  not injected in this run: %s (%s)\n", k, why)
	}
	return plan
}

// load runs the buyers of every configuration, the nemesis and the
// progress lines for -duration, and returns the nemesis with its counts.
func (run *chaosRun) load(ctx context.Context, configs []*chaosConfig, plan []faultEvent) *nemesis {
	f, out := run.f, run.stdout
	outMu := &sync.Mutex{}
	start := time.Now()
	loadCtx, cancel := context.WithTimeout(ctx, f.duration)
	defer cancel()
	nem := &nemesis{c: run.c, targets: run.targets, cluster: run.cl, out: out, outMu: outMu, start: start, planned: len(plan),
		durable: run.queued, restarts: &run.restarts,
		ensemble: run.ensemble, retryUntil: start.Add(f.duration - chaosQuietEnd),
		saleOf: func(i int) uint64 { return configs[i].currentSale() }}
	nem.withCounts()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); nem.run(loadCtx, plan) }()
	var buyers sync.WaitGroup
	for i, cf := range configs {
		buyCtx := cf.untilAnswered(ctx, loadCtx, f.overtime, out, outMu, start)
		for b := 0; b < f.buyers; b++ {
			buyers.Add(1)
			r := rand.New(rand.NewPCG(f.seed, uint64(i*1000+b)))
			go func() { defer buyers.Done(); cf.buy(buyCtx, run.c, run.targets, f, r) }()
		}
	}
	wg.Add(1)
	go func() { defer wg.Done(); chaosProgress(loadCtx, out, outMu, start, configs, nem) }()
	wg.Wait()
	buyers.Wait()
	fmt.Fprintf(out, "load over after %v; every fault healed; waiting for the replicas\n", time.Since(start).Round(time.Second))
	return nem
}

// untilAnswered is the ctx c's buyers buy under: it ends with loadCtx if
// an order of c was answered (201 or 202) by then, else once one is, with
// every fault healed, or overtime after loadCtx ended. A machine starved
// by other work (make test runs the replicas niced beside every other
// test) once left a configuration without a single answer in the whole
// run: it proved nothing, though nothing was wrong. The lines printed
// say which configurations sold only after the faults.
func (c *chaosConfig) untilAnswered(ctx, loadCtx context.Context, overtime time.Duration, out io.Writer, mu *sync.Mutex, start time.Time) context.Context {
	buyCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		<-loadCtx.Done()
		if c.answered() > 0 {
			return
		}
		mu.Lock()
		fmt.Fprintf(out, "  [%6.1fs] %s: no order answered under the faults; it buys on, faults healed, until one is (at most %v)\n",
			time.Since(start).Seconds(), c.name(), overtime)
		mu.Unlock()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		limit := time.After(overtime)
		for c.answered() == 0 {
			select {
			case <-ctx.Done():
				return
			case <-limit:
				return
			case <-tick.C:
			}
		}
		mu.Lock()
		fmt.Fprintf(out, "  [%6.1fs] %s: its first order answered after the faults\n", time.Since(start).Seconds(), c.name())
		mu.Unlock()
	}()
	return buyCtx
}

// answered counts c's orders answered 201 or 202.
func (c *chaosConfig) answered() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kinds[shopapi.KindOrder] + c.kinds[shopapi.KindAccepted]
}

// check waits for the replicas to be back, then judges each configuration
// against the database.
func (run *chaosRun) check(ctx context.Context, configs []*chaosConfig) ([]chaosVerdict, error) {
	if run.cl != nil {
		if err := run.cl.waitAllHealthy(ctx); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var took []string // the configurations whose check took long, and where
	defer func() {
		fmt.Fprintf(run.stdout, "checked in %v %v\n", time.Since(start).Round(100*time.Millisecond), took)
	}()
	verdicts := make([]chaosVerdict, len(configs))
	for i, cf := range configs {
		t0 := time.Now()
		// Reading each sale on every replica also makes each write its
		// queued critical-section records (the overlap evidence).
		drift, err := cf.storeDrift(ctx, run.c, run.targets)
		read := time.Since(t0)
		if err != nil {
			return nil, fmt.Errorf("%s: reading the sales: %w", cf.name(), err)
		}
		var v chaosVerdict
		if cf.Async {
			v, err = cf.checkQueue(ctx, run.store, run.c, run.targets, run.restarts.list())
		} else {
			v, err = cf.check(ctx, run.store)
			if err == nil {
				err = cf.checkStuck(ctx, run.c, run.store, run.targets, run.restarts.list(), &v)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: checking the database: %w", cf.name(), err)
		}
		v.StoreDrift = drift
		verdicts[i] = v
		if all := time.Since(t0); all > 5*time.Second {
			took = append(took, fmt.Sprintf("%s: %v (sales read in %v)", cf.name(), all.Round(100*time.Millisecond), read.Round(100*time.Millisecond)))
		}
	}
	for i, h := range histories(ctx, configs, run.c, run.targets) {
		verdicts[i].Histories = h
	}
	return verdicts, nil
}

// errBadStrategy: -strategy names a strategy the replicas do not have.
var errBadStrategy = errors.New("-strategy")

// chooseConfigs reads the strategies and builds the configurations: each
// named (or, for all, each safe one and each with fencing tokens) available
// strategy, fenced and unfenced when its leases carry tokens.
// queued: the replicas have the queue, and redis-lua-stock gets its async
// configurations too. fencedOnly: a strategy with tokens runs fenced only.
// combine ("all", "none" or names): each asserted configuration of a lock
// strategy among them gets a twin that combines (one lock per batch).
func chooseConfigs(ctx context.Context, c *shopapi.Client, target, names string, queued, fencedOnly bool, combine string) ([]*chaosConfig, error) {
	ctx, cancel := context.WithTimeout(ctx, load.SetupTimeout)
	defer cancel()
	all, err := c.Strategies(ctx, target)
	if err != nil {
		return nil, err
	}
	var chosen []shopapi.StrategyInfo
	if names == "all" {
		for _, s := range all {
			// A lock that is not safe but gives fencing tokens (redis-sentinel:
			// a failover loses it) runs too: fenced, it must still hold.
			if (s.Safe || s.Tokens) && s.Available {
				chosen = append(chosen, s)
			}
		}
	} else {
		for _, n := range config.List(names) {
			i := slices.IndexFunc(all, func(s shopapi.StrategyInfo) bool { return s.Name == n })
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
	newConfig := func(strategy string) *chaosConfig {
		return &chaosConfig{Strategy: strategy, ledger: map[uint64]map[string]*userLedger{}, kinds: map[string]int64{},
			hist: hdrhistogram.New(load.HistMinUS, load.HistMaxUS, load.HistSigFigs)}
	}
	var out []*chaosConfig
	for _, s := range chosen {
		fencings := []bool{false}
		switch {
		case s.Tokens && fencedOnly:
			fencings = []bool{true}
		case s.Tokens:
			fencings = []bool{true, false}
		}
		for _, fencing := range fencings {
			// Without fencing, a lease that can expire under a stalled
			// holder (ttl, session) is expected to break: counted, not failed.
			c := newConfig(s.Name)
			// Fenced, the database refuses a stale holder's write whatever
			// the lock lost: asserted for every strategy, safe or not.
			c.Fencing, c.MustHold = fencing, fencing || s.Safe && (s.Expiry == "none" || s.Expiry == "connection")
			c.RedisLock = s.Tokens && slices.Contains(s.Needs, "redis")
			c.StoreStock = s.Name == "redis-lua-stock"
			out = append(out, c)
			if c.MustHold && s.Kind == "lock" && combines(combine, s.Name) {
				twin := newConfig(s.Name)
				twin.Fencing, twin.MustHold, twin.RedisLock, twin.Combine = c.Fencing, true, c.RedisLock, true
				out = append(out, twin)
			}
		}
		if s.Name == "redis-lua-stock" && queued {
			for _, c := range queueConfigs(newConfig) {
				c.MustHold = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// combines says strategy is among the --combine list.
func combines(list, strategy string) bool {
	switch list {
	case "all":
		return true
	case "none", "":
		return false
	}
	return slices.Contains(config.List(list), strategy)
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
		case k == string(faultkind.ExpireZKSession) && !has("zookeeper"):
			skipped[k] = "no zookeeper configuration"
		case k == chaosRestartMstr && (len(b.Redlock) == 0 || !has("redlock")):
			skipped[k] = "no redlock configuration"
		case k == string(faultkind.RestartRedis) && b.Redis == "":
			skipped[k] = "no Redis"
		case k == string(faultkind.KillConsumer) && !slices.ContainsFunc(configs, func(c *chaosConfig) bool { return c.Async }):
			skipped[k] = "no queue configuration"
		case (k == string(faultkind.HoldReplication) || k == string(faultkind.KillRedisMaster)) && !has("redis-sentinel"):
			skipped[k] = "no redis-sentinel configuration (-sentinel-addrs)"
		case k == string(faultkind.KillZKServer) && (!b.ZKEnsemble || !has("zookeeper")):
			skipped[k] = "no zookeeper configuration on an ensemble (-zk-ensemble); the standalone ZooKeeper is never killed"
		case k == string(faultkind.DropReply) && !slices.ContainsFunc(configs, func(c *chaosConfig) bool { return c.RedisLock }):
			skipped[k] = "no configuration whose lock runs scripts on the default Redis"
		case k == string(faultkind.CrashAfterSetNX) && !has("redis"):
			skipped[k] = "no redis configuration"
		default:
			out = append(out, k)
		}
	}
	return out, skipped
}

// openSale creates the configuration's next sale, unless another buyer
// already replaced sold (0: the first one).
func (c *chaosConfig) openSale(ctx context.Context, cl *shopapi.Client, targets []string, f chaosFlags, sold uint64) error {
	c.mu.Lock()
	if c.current != sold {
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	req := shopapi.SaleRequest{Name: "chaos " + c.name() + " seed " + strconv.FormatUint(f.seed, 10), Strategy: c.Strategy,
		Stock: f.stock, WorkMS: f.workMS, TTLMS: f.ttlMS, Fencing: c.Fencing, PerUserLimit: 1, Combine: c.Combine}
	if c.StoreStock {
		req.WorkMS = max(req.WorkMS, chaosPersistWorkMS)
	}
	var lastErr error
	for _, t := range targets { // a replica may be down: try the next
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var id uint64
		var err error
		if c.Async {
			var v shopapi.SaleView
			req.OrderMode, req.PayWithinMS = "async", c.PayWithinMS
			v, _, err = cl.CreateSale(cctx, t, req)
			id = v.ID
		} else {
			var v shopapi.SaleView
			v, _, err = cl.CreateSale(cctx, t, req)
			id = v.ID
		}
		cancel()
		if err == nil {
			c.mu.Lock()
			if c.current == sold {
				c.current = id
			}
			c.sales = append(c.sales, id) // checked even if another buyer's sale won
			c.mu.Unlock()
			return nil
		}
		lastErr = err
	}
	return fmt.Errorf("%w: %v", errNoSale, lastErr)
}

// userPool is how many users buy from a sale: twice the stock, four times
// with reservations, where an expired order still counts against its user
// (half the buyers let theirs expire: the sale must still sell out).
func (c *chaosConfig) userPool(stock int64) int64 {
	if c.PayWithinMS > 0 {
		return 4 * stock
	}
	return 2 * stock
}

func (c *chaosConfig) currentSale() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

// buy orders until ctx ends: a random user of the sale's pool (users come
// back, and per_user_limit 1 must hold), on a random replica. A sold-out
// sale is replaced by a new one.
func (c *chaosConfig) buy(ctx context.Context, cl *shopapi.Client, targets []string, f chaosFlags, r *rand.Rand) {
	for ctx.Err() == nil {
		sale := c.currentSale()
		user := "u" + strconv.Itoa(r.IntN(int(c.userPool(f.stock))))
		if r.IntN(8) == 0 {
			// A lookalike of a pool user (a trailing space, a control
			// character, another case...): refused, or a buyer of its own,
			// never a second order for the user it looks like.
			user = buyer.Lookalikes(r, user, 1)[0]
		}
		t0 := time.Now()
		// The request gets its own bound, not ctx: the end of the run must
		// not turn an answer in flight into an unknown one.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		target := targets[r.IntN(len(targets))]
		ack, id, ticket, kind := cl.OrderAck(rctx, shopapi.OrdersURL(target, sale), user)
		cancel()
		if (ack == shopapi.AckTicket || ack == shopapi.AckOrder) && buyer.CheckID(user) != nil {
			c.countBadBuyer()
		}
		if ack == shopapi.AckTicket {
			c.recordTicket(sale, user, ticket, t0, time.Since(t0))
		} else {
			c.record(sale, user, ack, id, kind, time.Since(t0))
		}
		switch {
		case ack == shopapi.AckTicket && c.PayWithinMS > 0 && r.IntN(2) == 0:
			c.payLater(ctx, cl, target, ticket, user) // half the buyers pay, the others let it expire
		case ack == shopapi.AckTicket:
			load.Sleep(ctx, time.Duration(r.IntN(20))*time.Millisecond) // a 202 is instant: do not flood the stream
		case kind == shopapi.KindSoldOut:
			c.create.Lock() // one new sale, not one per buyer
			err := c.openSale(ctx, cl, targets, f, sale)
			c.create.Unlock()
			if err != nil {
				load.Sleep(ctx, 200*time.Millisecond) // a fault is on: try again later
			}
		case ack != shopapi.AckOrder:
			load.Sleep(ctx, time.Duration(r.IntN(20))*time.Millisecond) // a refusal or a fault: do not spin
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
				if k == shopapi.KindOrder {
					orders += v
				}
			}
			c.mu.Unlock()
		}
		faults := n.injectedTotal()
		mu.Lock()
		fmt.Fprintf(out, "  [%6.1fs] progress: %d answers, %d orders (201), %d faults injected\n",
			time.Since(start).Seconds(), answers, orders, faults)
		mu.Unlock()
	}
}
