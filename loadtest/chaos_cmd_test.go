package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/chaos"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// Every bad flag exits 2 with a first line naming it, before anything starts.
func TestChaosUsageErrors(t *testing.T) {
	for _, tc := range []struct{ args, names string }{
		{"--duration 5s", "-duration"},
		{"--replicas 0", "-replicas"},
		{"--buyers 100", "-buyers"},
		{"--stock 0", "-stock"},
		{"--ttl-ms 10", "-ttl-ms"},
		{"--work-ms -1", "-work-ms"},
		{"--mean-gap 1ms", "-mean-gap"},
		{"--replica-nice 20", "-replica-nice"},
		{"--faults kill_everything", "-faults"},
		{"--targets 127.0.0.1:8080", "-targets"},
		{"--seed minus-one", "-seed"},
		{"--zk-ensemble --zk-servers 127.0.0.1:2181", "-zk-ensemble"},
		{"extra", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(context.Background(), append([]string{"chaos"}, strings.Fields(tc.args)...), &stdout, &stderr)
		first, _, _ := strings.Cut(stderr.String(), "\n")
		if code != load.ExitUsage || !strings.Contains(first, tc.names) {
			t.Errorf("chaos %s: exit %d, first line %q; want exit %d naming %s", tc.args, code, first, load.ExitUsage, tc.names)
		}
	}
}

// A 60-second chaos run on every safe strategy, against three real shop
// replicas behind the run's own proxies, over Redis servers of the test's
// own (the nemesis restarts them): every asserted invariant must hold, and
// the run must actually have sold and injected. SECKILL_CHAOS_SEED replays
// a failing seed.
func TestChaos(t *testing.T) {
	t.Parallel()
	seed := chaosSeed(t)
	t.Logf("seed %d (SECKILL_CHAOS_SEED=%d replays it)", seed, seed)
	out := runChaos(t, seed)
	chaosTablesHold(t, out, seed)
	chaosFaultsPlanned(t, out, seed)
}

// chaosSeed is the run's seed: SECKILL_CHAOS_SEED's, else one from the
// clock.
func chaosSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano()%999_999_999) + 1
	if s := os.Getenv("SECKILL_CHAOS_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("SECKILL_CHAOS_SEED=%q: %v", s, err)
		}
	}
	return seed
}

// runChaos runs `loadtest chaos` for 60 s with seed and returns its
// stdout; an exit other than 0 fails the test.
func runChaos(t *testing.T, seed uint64) string {
	shop := testenv.Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
	// Its own database: its replicas use Redis servers of their own, and a
	// replica expires the reservations of every sale in its database and
	// gives the units back to its own Redis.
	dsn := testenv.MySQLDSN(t, "loadtest_chaos")
	// The zookeeper strategy runs on the ensemble (kill_zk_server kills its
	// servers, under the kill lock the other ensemble tests take too), and
	// redis-sentinel on a Sentinel set of the test's own (kill_redis_master).
	ens := testenv.ZKEnsemble(t)
	sentinels := testenv.PrivateSentinel(t)
	redis := testenv.PrivateRedis(t, 4)
	var stdout, stderr bytes.Buffer
	// Two buyers per configuration, fenced configurations only (the
	// unfenced twins' breaks are expected and not asserted: 5 configurations
	// of load for nothing checked on 2 cores; CI once starved db-lock-table
	// to no sale at all): the same user can still be in flight twice. The
	// replicas run niced: three race-built shops under
	// faults would otherwise take the 2 cores from the other packages' tests
	// and the browser test (whose deadlines then ran out in CI). A starved
	// replica only makes the faults harsher; nothing here is timed.
	// Combining twins for two lock strategies only (one lease-based and
	// fenced, one whose lock is the transaction), for the same reason; make
	// chaos runs them all.
	code := dispatch(context.Background(), []string{"chaos", "--duration", "60s", "--seed", strconv.FormatUint(seed, 10), "--buyers", "2", "--fenced-only", "--replica-nice", "10",
		"--combine", "redis,db-pessimistic",
		"--shop", shop, "--mysql-dsn", dsn, "--redis-addr", redis[0], "--redlock-addrs", strings.Join(redis[1:], ","),
		"--zk-servers", strings.Join(ens.Servers, ","), "--zk-ensemble", "--services-dir", ens.Dir,
		"--sentinel-addrs", strings.Join(sentinels, ","), "--sentinel-master", testenv.SentinelMaster,
		"--admin-token", testToken, "--log-dir", t.TempDir()}, &stdout, &stderr)
	out := stdout.String()
	t.Logf("\n%s\nstderr:\n%s", out, stderr.String())
	if code != load.ExitOK {
		t.Fatalf("exit %d, want 0 (an invariant broke, or the run failed: see above); replay: SECKILL_CHAOS_SEED=%d", code, seed)
	}
	return out
}

// chaosTablesHold: every configuration has a row with an order answered,
// lookalike buyers bought nothing, no unfenced twin ran, and every async
// configuration's tickets were followed to their end.
func chaosTablesHold(t *testing.T, out string, seed uint64) {
	for _, name := range []string{"db-conditional", "db-optimistic", "db-pessimistic", "db-lock-table+fencing",
		"redis+fencing", "redis-lua-stock", "redlock", "zookeeper+fencing", "etcd+fencing", "redisson+fencing", "redis-sentinel+fencing",
		"redis-lua-stock/async", "redis-lua-stock/async+pay", "redis+fencing+combine", "db-pessimistic+combine"} {
		row := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+(true|false)\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
		if row == nil {
			t.Errorf("no table row for %s", name)
			continue
		}
		if n, _ := strconv.Atoi(row[3]); n == 0 {
			t.Errorf("%s: no order answered 201 or 202: the run proved nothing for it (seed %d)", name, seed)
		}
	}
	// Lookalike buyers were sent, refused, and sold nothing.
	if m := regexp.MustCompile(`LOOKALIKES: (\d+) orders .* (\d+) were sold to`).FindStringSubmatch(out); m == nil || m[1] == "0" || m[2] != "0" {
		t.Errorf("lookalike ids: %q, want some refused and none sold to (seed %d)", m, seed)
	}
	// --fenced-only: no unfenced twin of a strategy with tokens.
	for _, name := range []string{"redis", "zookeeper", "etcd", "db-lock-table", "redis-sentinel"} {
		if regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+(true|false)\s`).MatchString(out) {
			t.Errorf("%s ran unfenced under --fenced-only", name)
		}
	}
	// The queue table: every async configuration's tickets were followed
	// to their end, and some became orders.
	for _, name := range []string{"redis-lua-stock/async", "redis-lua-stock/async+pay"} {
		row := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
		if row == nil {
			t.Errorf("no queue row for %s", name)
			continue
		}
		if n, _ := strconv.Atoi(row[2]); n == 0 {
			t.Errorf("%s: no ticket confirmed: the run proved nothing for the queue", name)
		}
	}
}

// chaosFaultsPlanned reads the fault table: the run planned faults, and
// says how many took effect.
func chaosFaultsPlanned(t *testing.T, out string, seed uint64) {
	// The faults: whether one lands depends on the world at that moment
	// (a replica being restarted, the Sentinels still promoting after the
	// last kill, another test's ZooKeeper kill under way): the run tries a
	// refused fault again, counts the refusals and reports them, and never
	// fails for them. A fault the shop answered with an error that is no
	// refusal fails the run (exit 1, above). That each kind can land is
	// shown on quiet backends by the tests of its own (internal/faults:
	// TestKillRedisMasterLosesWhatWasNotReplicated, TestKillZKServer; the
	// sentinel-failover and zk-ensemble-server-killed scenarios;
	// TestNemesisKillsAZKServer here).
	injected, planned := 0, 0
	for _, m := range regexp.MustCompile(`(?m)^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$`).FindAllStringSubmatch(out, -1) {
		if slices.Contains(chaos.Kinds, m[1]) {
			n, _ := strconv.Atoi(m[2])
			lost, _ := strconv.Atoi(m[3])
			missed, _ := strconv.Atoi(m[4])
			injected += n
			planned += n + lost + missed
			if n+lost == 0 {
				t.Logf("%s: not injected in this run (seed %d): every try was refused (see its lines above)", m[1], seed)
			}
		}
	}
	// A run that injected nothing proved nothing: the run itself exits 1
	// then. Here: the table lists the planned faults.
	if planned == 0 {
		t.Errorf("no fault table in the output (seed %d)", seed)
	}
	t.Logf("seed %d: %d of %d planned faults took effect", seed, injected, planned)
}
