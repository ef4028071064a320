package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
)

// A scenario replays one seed pitfall against running shop replicas: it
// states what the seed predicts, sets the failure up through the API (sales,
// orders, POST /api/faults), reads what happened from the database (the
// sale view: oversold, lost updates, violations, fenced writes) and says PASS
// when the two agree. Each one runs the unsafe setup AND its fix, so a PASS
// means both directions held.
type scenario struct {
	name    string
	predict string
	// minTargets is how many replicas it needs; with fewer it is skipped.
	minTargets int
	run        func(ctx context.Context, sc *scenarioRun) (observed string, pass bool, err error)
}

// scenarioRun is what a scenario runs against.
type scenarioRun struct {
	c       *client
	targets []string
}

// settle is how long to wait after the last order before reading the sale:
// each replica's critical-section log flushes every 100 ms, and the
// violation detector reads that log.
const settle = 600 * time.Millisecond

// scenarios is the catalogue, in the order `all` runs them.
var scenarios = []scenario{
	{
		name: "pause-past-ttl",
		predict: "a holder paused (GC) past its lock's TTL writes after another buyer took the lock: " +
			"without fencing a lost update; with fencing the stale write is rejected (fenced_writes 1, no lost update)",
		minTargets: 1,
		run:        pausePastTTL,
	},
	{
		name: "mutex-across-replicas",
		predict: "an in-process mutex does not exclude a second replica: overlapping critical sections " +
			"and lost updates; db-pessimistic on the same load breaks nothing",
		minTargets: 2,
		run:        mutexAcrossReplicas,
	},
	{
		name: "del-without-owner",
		predict: "a holder whose lock expired deletes the next holder's lock with a plain DEL (redis-no-owner): " +
			"overlapping critical sections; redis (owner-checked release + watchdog) keeps them apart, no oversell",
		minTargets: 1,
		run:        delWithoutOwner,
	},
	{
		name: "optimistic-vs-pessimistic",
		predict: "under contention optimistic CAS loses rounds and retries (fewer orders/s) while pessimistic " +
			"queues on the row lock with no retries; both hold (oversold 0)",
		minTargets: 1,
		run:        optimisticVsPessimistic,
	},
	{
		name: "zk-session-expiry",
		predict: "a zookeeper holder whose session expires loses the lock: a buyer on another replica gets it " +
			"while the first still stalls; the first's write is fenced (or aborted as lock_lost); violations >= 1, oversold 0",
		minTargets: 2,
		run:        zkSessionExpiry,
	},
}

// scenarioCmd is `loadtest scenario [flags] NAME|all|list`.
func scenarioCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scenario", flag.ContinueOnError)
	fs.SetOutput(stderr)
	targets := fs.String("targets", "http://127.0.0.1:8080", "comma-separated shop `URLs`; some scenarios need two replicas")
	token := fs.String("admin-token", config.Get(config.EnvAdminToken, ""), "admin bearer `token` for sales and faults (env "+config.EnvAdminToken+")")
	timeout := fs.Duration("timeout", 30*time.Second, "per-request `timeout`")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loadtest scenario [flags] NAME|all|list\n\nThe shops must run with %s=on.\nScenarios:\n", config.EnvFaults)
		for _, s := range scenarios {
			fmt.Fprintf(stderr, "  %-22s %s\n", s.name, s.predict)
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	var chosen []scenario
	switch name := fs.Arg(0); name {
	case "list":
		for _, s := range scenarios {
			fmt.Fprintf(stdout, "%s\t%s\n", s.name, s.predict)
		}
		return exitOK
	case "all":
		chosen = scenarios
	default:
		for _, s := range scenarios {
			if s.name == name {
				chosen = append(chosen, s)
			}
		}
		if chosen == nil {
			fmt.Fprintf(stderr, "loadtest scenario: unknown scenario %q (try list)\n", name)
			return exitUsage
		}
	}
	var urls []string
	for _, u := range strings.Split(*targets, ",") {
		if u = strings.TrimRight(strings.TrimSpace(u), "/"); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		fmt.Fprintln(stderr, "loadtest scenario: --targets is empty")
		return exitUsage
	}
	c := newClient(64, *timeout, *token)
	defer c.close()
	sc := &scenarioRun{c: c, targets: urls}

	code := exitOK
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tVERDICT\tOBSERVED")
	for _, s := range chosen {
		fmt.Fprintf(stdout, "== %s\n   seed predicts: %s\n", s.name, s.predict)
		if len(urls) < s.minTargets {
			fmt.Fprintf(tw, "%s\tSKIP\tneeds %d targets, got %d\n", s.name, s.minTargets, len(urls))
			continue
		}
		observed, pass, err := s.run(ctx, sc)
		verdict := "PASS"
		switch {
		case err != nil:
			verdict, observed, code = "ERROR", err.Error(), exitFail
		case !pass:
			verdict, code = "FAIL", exitFail
		}
		fmt.Fprintf(stdout, "   observed:      %s\n   %s\n", observed, verdict)
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, verdict, observed)
	}
	fmt.Fprintln(stdout)
	tw.Flush()
	return code
}

// fault is POST target/api/faults.
func (sc *scenarioRun) fault(ctx context.Context, target string, body map[string]any) error {
	var out map[string]any
	_, err := sc.c.callJSON(ctx, http.MethodPost, target+"/api/faults", body, http.StatusAccepted, &out)
	return err
}

func ordersURL(target string, id uint64) string {
	return target + "/api/sales/" + strconv.FormatUint(id, 10) + "/orders"
}

// settled reads the sale once the replicas' section logs have flushed.
func (sc *scenarioRun) settled(ctx context.Context, id uint64) (saleView, error) {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return saleView{}, ctx.Err()
	}
	v, _, err := sc.c.sale(ctx, sc.targets[0], id)
	return v, err
}

func describe(v saleView) string {
	return fmt.Sprintf("sold %d stock %d oversold %d lost_updates %d violations %d fenced_writes %d",
		v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Violations, v.FencedWrites)
}

// pausePastTTL: db-lock-table with a 300 ms TTL; buyer A's section is paused
// 900 ms (pause_holder), buyer B comes 450 ms later, after A's lock row
// expired, and takes the lock. Run without then with fencing.
func pausePastTTL(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	target := sc.targets[0]
	var parts []string
	pass := true
	for _, fencing := range []bool{false, true} {
		v, _, err := sc.c.createSale(ctx, target, saleRequest{Name: "scenario pause-past-ttl", Strategy: "db-lock-table",
			Stock: 10, TTLMS: 300, Fencing: fencing})
		if err != nil {
			return "", false, err
		}
		if err := sc.fault(ctx, target, map[string]any{"kind": "pause_holder", "ms": 900}); err != nil {
			return "", false, err
		}
		a := make(chan string, 1)
		go func() { a <- sc.c.order(ctx, ordersURL(target, v.ID), "A") }()
		time.Sleep(450 * time.Millisecond) // A holds, then its lock row expires
		b := sc.c.order(ctx, ordersURL(target, v.ID), "B")
		aKind := <-a
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		if fencing {
			pass = pass && aKind == "fenced" && b == kindOrder && got.FencedWrites == 1 && got.LostUpdates == 0 && got.Oversold == 0
		} else {
			pass = pass && aKind == kindOrder && b == kindOrder && got.LostUpdates >= 1
		}
		parts = append(parts, fmt.Sprintf("fencing=%v: A %s, B %s; %s", fencing, aKind, b, describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}

// mutexAcrossReplicas: the same load (60 buyers, 8 at a time per replica,
// alternating between two replicas, 20 ms of work inside the section) on a
// `mutex` sale and on a `db-pessimistic` one.
func mutexAcrossReplicas(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"mutex", "db-pessimistic"} {
		v, _, err := sc.c.createSale(ctx, sc.targets[0], saleRequest{Name: "scenario mutex-across-replicas",
			Strategy: strategy, Stock: 40, WorkMS: 20})
		if err != nil {
			return "", false, err
		}
		var wg sync.WaitGroup
		for w := 0; w < 16; w++ {
			target := sc.targets[w%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 4; i++ {
					sc.c.order(ctx, ordersURL(target, v.ID), fmt.Sprintf("u%d-%d", w, i))
				}
			}()
		}
		wg.Wait()
		got, err := sc.settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		broken := got.Oversold > 0 || got.LostUpdates > 0 || got.Violations > 0
		if strategy == "mutex" {
			pass = pass && broken
		} else {
			pass = pass && !broken
		}
		parts = append(parts, fmt.Sprintf("%s: %s", strategy, describe(got)))
	}
	return strings.Join(parts, " | "), pass, nil
}
