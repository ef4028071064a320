package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/httpapi"
	"github.com/seckill-lab/seckill/internal/share"
)

// Tunables of `shop demo`.
const (
	// upTimeout bounds the wait for a replica's first /healthz 200: it
	// migrates and connects to every backend first.
	upTimeout = 60 * time.Second
	// stopTimeout bounds the graceful stop of the children before SIGKILL:
	// a replica's own shutdownTimeout, so an in-flight order can finish.
	stopTimeout = shutdownTimeout
	// defaultLogDir holds one log per child, relative to the working
	// directory (the repository root under `make demo`; git-ignored).
	defaultLogDir = ".run/demo"
)

// demoConfig is `shop demo`'s configuration: the replicas' own (passed on
// to each of them) plus how many processes to start.
type demoConfig struct {
	serveConfig
	Replicas int
	Agents   int
	LogDir   string
}

// parseDemo parses the flags of `shop demo`: every flag of serve plus
// -replicas, -agents and -log-dir.
func parseDemo(args []string, stderr io.Writer) (demoConfig, error) {
	var cfg demoConfig
	fs, err := flagSet("demo", demoSummary, &cfg.serveConfig, stderr)
	if err != nil {
		return cfg, err
	}
	fs.IntVar(&cfg.Replicas, "replicas", 3, "`number` of shop serve processes, on consecutive ports from -http-addr's")
	fs.IntVar(&cfg.Agents, "agents", 2, "`number` of loadtest agent processes (needs loadtest beside this binary, as make build puts it)")
	fs.StringVar(&cfg.LogDir, "log-dir", defaultLogDir, "`directory` of the children's logs, one <name>.log each")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	switch {
	case cfg.Replicas < 1 || cfg.Replicas > 64:
		return cfg, fmt.Errorf("-replicas %d: want 1 to 64", cfg.Replicas)
	case cfg.Agents < 0 || cfg.Agents > 64:
		return cfg, fmt.Errorf("-agents %d: want 0 to 64", cfg.Agents)
	}
	var named bool // SECKILL_REPLICA_ID in the environment is fine: each child gets -replica-id
	fs.Visit(func(f *flag.Flag) { named = named || f.Name == "replica-id" })
	if named {
		return cfg, fmt.Errorf("-replica-id: the demo names its replicas shop-1..shop-N itself")
	}
	if _, err := replicaAddrs(cfg.HTTPAddr, cfg.Replicas); err != nil {
		return cfg, err
	}
	if cfg.ClientIPs, err = httpapi.NewClientIPs(cfg.TrustedProxies, cfg.ClientIPHeader); err != nil {
		return cfg, fmt.Errorf("-trusted-proxies / %s: %w", config.EnvTrustedProxies, err)
	}
	return cfg, nil
}

// replicaAddrs returns n listen addresses on consecutive ports from base's.
func replicaAddrs(base string, n int) ([]string, error) {
	host, p, err := net.SplitHostPort(base)
	if err != nil {
		return nil, fmt.Errorf("-http-addr %q: %w", base, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port+n-1 > 65535 {
		return nil, fmt.Errorf("-http-addr %q: the demo needs a fixed base port with %d ports free above it "+
			"(port 0, a random port, would leave the replicas' URLs unknown)", base, n)
	}
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = net.JoinHostPort(host, strconv.Itoa(port+i))
	}
	return addrs, nil
}

// portsFree fails on the first address something already listens on, so
// that the demo says so up front rather than through a child that dies.
func portsFree(addrs []string) error {
	for _, a := range addrs {
		l, err := net.Listen("tcp", a)
		if err != nil {
			return fmt.Errorf("cannot listen on %s (another demo or shop running?): %w\n"+
				"-http-addr or %s moves the base port", a, err, config.EnvHTTPAddr)
		}
		l.Close()
	}
	return nil
}

// demo is `shop demo`: migrate, start the replicas and agents as child
// processes, report each, and run until ctx is done (Ctrl-C, SIGTERM); then
// stop every child and return 0. A child that dies is reported on stderr at
// once and never restarted: the demo is there to show what happens.
func demo(ctx context.Context, cfg demoConfig, stdout, stderr io.Writer) int {
	if refuseBeyondLoopback(cfg.serveConfig, stderr) || refuseWeakSecrets(cfg.serveConfig, stderr) {
		return 2
	}
	addrs, _ := replicaAddrs(cfg.HTTPAddr, cfg.Replicas) // checked by parseDemo
	exe, err := prepareDemo(ctx, cfg, addrs)
	if err != nil {
		fmt.Fprintf(stderr, "shop demo: %v\n", err)
		return 1
	}
	sup := newSupervisor(stdout, stderr)
	sup.say(stdout, "Seckill Lab demo: %s, %s; each process logs to %s",
		plural(cfg.Replicas, "replica"), plural(cfg.Agents, "agent"), filepath.Join(cfg.LogDir, "<name>.log"))
	if err := startReplicas(sup, cfg, addrs, exe); err != nil {
		sup.say(stderr, "shop demo: %v", err)
		return sup.stop(1)
	}
	for _, c := range sup.children {
		if !sup.waitUp(ctx, c, upTimeout) && ctx.Err() != nil {
			return sup.stop(0)
		}
	}
	if cfg.Agents > 0 {
		startAgents(ctx, sup, cfg, addrs, filepath.Dir(exe))
	}
	sup.say(stdout, "Dashboard: %s\nCtrl-C stops every process (a second Ctrl-C quits at once).", dashboardURL(addrs[0]))
	if info := share.For(addrs[0], true, "/", share.LANIP); info.Shared {
		sup.say(stdout, "Shared beyond loopback, with the admin token: %s", info.URL+" "+
			"(the dashboard's \"Students: open on your phone\" button shows each sale's link and QR code)")
	}
	if sup.run(ctx) {
		return sup.stop(0)
	}
	sup.say(stderr, "shop demo: every process has exited; nothing left to run")
	return sup.stop(1)
}

// prepareDemo checks the ports are free, migrates the database and makes
// the log directory; it returns this binary, which the replicas run.
func prepareDemo(ctx context.Context, cfg demoConfig, addrs []string) (exe string, err error) {
	if err := portsFree(addrs); err != nil {
		return "", err
	}
	exe, err = os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find my own binary to start the replicas: %w", err)
	}
	// Once here rather than racing in every child (they would serialise on
	// the migration lock anyway); a database that is down fails here, once.
	if _, err := runMigrations(ctx, cfg.MySQLDSN, discardLog()); err != nil {
		return "", err
	}
	if err := os.MkdirAll(cfg.LogDir, 0o755); err != nil {
		return "", fmt.Errorf("logs: %w", err)
	}
	return exe, nil
}

// startReplicas starts one `shop serve` child per address, named
// shop-1..shop-N, with faults on.
func startReplicas(sup *supervisor, cfg demoConfig, addrs []string, exe string) error {
	for i, addr := range addrs {
		name := fmt.Sprintf("shop-%d", i+1)
		args := []string{"serve", "-http-addr", addr, "-replica-id", name, "-redis-addr", cfg.RedisAddr,
			"-redlock-addrs", cfg.RedlockAddrs, "-zk-servers", cfg.ZKServers, "-etcd-endpoints", cfg.EtcdEndpoints,
			"-lock-wait", cfg.LockWait.String(), "-log-level", cfg.LogLevel.String(), "-order-rate-ip", strconv.Itoa(cfg.OrderRateIP),
			"-trusted-proxies", cfg.TrustedProxies, "-client-ip-header", cfg.ClientIPHeader}
		// The DSN (it may hold a password) and the admin token travel in the
		// environment, not on the command line where ps shows them.
		env := withEnv(os.Environ(), config.EnvMySQLDSN+"="+cfg.MySQLDSN, config.EnvFaults+"=on")
		if _, err := sup.start(name, "http://"+addr, exe, args, env, cfg.LogDir); err != nil {
			return fmt.Errorf("start %s: %w", name, err)
		}
	}
	return nil
}

// startAgents starts -agents load-test agents from the loadtest binary in
// dir, each on its own replica first; without that binary it says why and
// starts none. An agent that fails to start is reported and skipped.
func startAgents(ctx context.Context, sup *supervisor, cfg demoConfig, addrs []string, dir string) {
	bin, warning := agentBinary(ctx, dir)
	if warning != "" {
		sup.say(sup.stderr, "agents: %s, starting 0 agents", warning)
	}
	for i := 0; bin != "" && i < cfg.Agents; i++ {
		name := fmt.Sprintf("agent-%d", i+1)
		shops := agentShops(addrs, i)
		// The agent needs no database: it announces itself through the
		// shop (POST /api/agents/heartbeat).
		c, err := sup.start(name, shops[0], bin, []string{"agent", "--shop", strings.Join(shops, ",")}, os.Environ(), cfg.LogDir)
		if err != nil {
			sup.say(sup.stderr, "shop demo: start %s: %v", name, err)
			continue
		}
		sup.status(c, "started (load-test agent; talks to that shop, then the next one if it dies)")
	}
}

// probeTimeoutAgent bounds `loadtest agent -h`.
const probeTimeoutAgent = 5 * time.Second

// agentBinary finds the load-test tool beside the shop binary (bin/loadtest
// under `make build`) and checks that it has the agent command. It returns
// the binary, or "" and a warning to print: the demo then runs without
// agents rather than failing, since the replicas are useful on their own.
//
// "Has the agent command" means `loadtest agent -h` documents a -shop flag
// and does not answer "unknown command": the tool's top-level usage lists
// `agent` before it is built, so its mere mention proves nothing.
func agentBinary(ctx context.Context, dir string) (bin, warning string) {
	bin = filepath.Join(dir, "loadtest")
	shown := bin
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, bin); err == nil && !strings.HasPrefix(rel, "..") {
			shown = rel
		}
	}
	if fi, err := os.Stat(bin); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Sprintf("%s not found", shown)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeoutAgent)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "agent", "-h").CombinedOutput() // -h exits non-zero by convention
	help := string(out)
	if !strings.Contains(help, "-shop") || strings.Contains(help, "unknown command") {
		return "", fmt.Sprintf("%s has no `agent` command yet", shown)
	}
	return bin, ""
}

// withEnv returns env with each "KEY=value" of set replacing any entry of
// the same key.
func withEnv(env []string, set ...string) []string {
	keys := map[string]bool{}
	for _, kv := range set {
		k, _, _ := strings.Cut(kv, "=")
		keys[k] = true
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !keys[k] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// plural is "1 replica", "3 replicas".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// agentShops lists every replica's URL for agent i, starting with its own
// (agents are spread over the replicas); the agent moves on to the next one
// when its shop dies, e.g. killed by the kill_process fault.
func agentShops(addrs []string, i int) []string {
	shops := make([]string, 0, len(addrs))
	for k := range addrs {
		shops = append(shops, "http://"+addrs[(i+k)%len(addrs)])
	}
	return shops
}
