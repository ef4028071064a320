package chaos

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// chaosFlags are the flags of `loadtest chaos`.
type chaosFlags struct {
	targets    string
	replicas   int
	shop       string
	strategy   string
	duration   time.Duration
	overtime   time.Duration
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
	etcd       string
	sentinels  string
	sentMaster string
	zkEnsemble bool
	svcDir     string
	adminToken string
	logDir     string
	nice       int
	fencedOnly bool
	// combine: the lock strategies whose configurations get a combining
	// twin ("all", "none" or names).
	combine string
}

const chaosSummary = "usage: loadtest chaos [flags]\n\nBuyers order on every safe strategy while a seeded schedule of faults runs;\n" +
	"then the database is checked against every answer. Exit 1 when an invariant breaks.\n\n"

// parseChaosFlags parses and checks args; on a bad value it prints one line
// naming the flag and a hint to -h. A seed of 0 is replaced by a drawn one.
func parseChaosFlags(args []string, stderr io.Writer) (chaosFlags, error) {
	var f chaosFlags
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.define(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, chaosSummary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if err := f.check(fs.Args()); err != nil {
		fmt.Fprintln(stderr, "loadtest chaos:", err)
		fmt.Fprintln(stderr, "(loadtest chaos -h lists the flags)")
		return f, err
	}
	if f.seed == 0 {
		f.seed = 1 + rand.Uint64N(999_999_999)
	}
	return f, nil
}

// define declares every flag of `loadtest chaos` on fs, bound to f.
func (f *chaosFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.targets, "targets", "", "comma-separated shop `URLs` already running with "+config.EnvFaults+"=on; "+
		"empty (the default): the run starts -replicas shops of its own, behind its own TCP proxies, which also allows "+
		"kill_process (it restarts them) and the network faults")
	fs.IntVar(&f.replicas, "replicas", 3, "`number` of shop replicas the run starts (without -targets)")
	fs.StringVar(&f.shop, "shop", "", "shop `binary` the run starts (default: shop beside this binary, as make build puts it)")
	fs.StringVar(&f.strategy, "strategy", "all", "`names`, comma-separated, or all (every safe strategy the replicas have)")
	fs.DurationVar(&f.duration, "duration", time.Minute, "how long the buyers and the nemesis run")
	fs.DurationVar(&f.overtime, "overtime", 3*time.Minute, "after -duration, with every fault healed, a configuration "+
		"no order was answered for keeps buying until one is, for at most this `long` (a starved machine can leave one "+
		"without an answer under the faults; the report says which, and a configuration still without one fails the run)")
	fs.Uint64Var(&f.seed, "seed", 0, "`seed` of the fault schedule and the buyers; 0 draws one (printed, to replay)")
	fs.IntVar(&f.buyers, "buyers", 3, "concurrent buyers per configuration (strategy, fencing on/off)")
	fs.Int64Var(&f.stock, "stock", 20, "units per sale; a sold-out sale is followed by a new one")
	fs.IntVar(&f.ttlMS, "ttl-ms", 500, "the locks' TTL in ms: stalls are drawn from 1.5 TTL up")
	fs.IntVar(&f.workMS, "work-ms", 2, "simulated work inside the critical section, ms")
	fs.StringVar(&f.faults, "faults", "all", "fault `kinds`, comma-separated, or all: "+strings.Join(Kinds, ", "))
	fs.DurationVar(&f.meanGap, "mean-gap", 1500*time.Millisecond, "mean time between two faults")
	fs.StringVar(&f.dsn, "mysql-dsn", config.Get(config.EnvMySQLDSN, config.DefaultMySQLDSN), "the database the checker reads (and the run's shops use) (env "+config.EnvMySQLDSN+")")
	fs.StringVar(&f.redis, "redis-addr", config.Get(config.EnvRedisAddr, config.DefaultRedisAddr), "Redis of the run's shops (env "+config.EnvRedisAddr+")")
	fs.StringVar(&f.redlock, "redlock-addrs", config.Get(config.EnvRedlockAddrs, config.DefaultRedlockAddrs), "RedLock masters of the run's shops (env "+config.EnvRedlockAddrs+")")
	fs.StringVar(&f.zk, "zk-servers", config.Get(config.EnvZKServers, config.DefaultZKServers), "ZooKeeper of the run's shops: one server, "+
		"or the servers of an ensemble, each behind its own proxy (env "+config.EnvZKServers+")")
	fs.BoolVar(&f.zkEnsemble, "zk-ensemble", false, "-zk-servers are the three servers of scripts/services.sh up --zk-ensemble "+
		"(make chaos passes them): kill_zk_server SIGKILLs one by the pid file under -services-dir and starts it again")
	fs.StringVar(&f.svcDir, "services-dir", config.Get(config.EnvServicesDir, ".run"), "`folder` where scripts/services.sh keeps "+
		"the ensemble's pid files (env "+config.EnvServicesDir+")")
	fs.StringVar(&f.sentinels, "sentinel-addrs", config.Get(config.EnvSentinelAddrs, config.DefaultSentinelAddrs),
		"Redis Sentinels of the run's shops (redis-sentinel, fenced; kill_redis_master and hold_replication act on its master); "+
			"\"\" for none (env "+config.EnvSentinelAddrs+")")
	fs.StringVar(&f.sentMaster, "sentinel-master", config.Get(config.EnvSentinelMaster, config.DefaultSentinelMaster),
		"`name` of the master the Sentinels watch (env "+config.EnvSentinelMaster+")")
	fs.StringVar(&f.etcd, "etcd-endpoints", config.Get(config.EnvEtcdEndpoints, config.DefaultEtcdEndpoints), "etcd of the run's shops, one endpoint; \"\" for none (env "+config.EnvEtcdEndpoints+")")
	fs.StringVar(&f.adminToken, "admin-token", config.Get(config.EnvAdminToken, ""), "admin bearer `token` for sales and faults (env "+config.EnvAdminToken+")")
	fs.StringVar(&f.logDir, "log-dir", ".run/chaos", "`directory` of the run's shop logs")
	fs.BoolVar(&f.fencedOnly, "fenced-only", false, "leave out the unfenced configuration of each strategy that also runs fenced "+
		"(its breaks are expected, counted and not asserted): fewer buyers for a small machine, as make test runs it")
	fs.StringVar(&f.combine, "combine", "all", "lock `strategies` whose asserted configurations (fenced, or safe without a lease) also run "+
		"with combining (one lock per batch of orders): all, none, or names, comma-separated")
	fs.IntVar(&f.nice, "replica-nice", 0, "`niceness` (0-19) of the replicas the run starts: make test lowers them so the other tests keep their share of the CPU")
}

// intRange is an integer flag's value and the range it must lie in.
type intRange struct {
	flag   string
	v      int64
	lo, hi int64
}

// check returns the first problem with f and the positional args, naming
// the flag.
func (f chaosFlags) check(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments: %v", args)
	}
	if f.duration < 10*time.Second {
		return fmt.Errorf("-duration %v: at least 10s (faults start after 3s and stop 5s before the end)", f.duration)
	}
	if f.overtime < 0 {
		return fmt.Errorf("-overtime %v: 0 or more", f.overtime)
	}
	for _, r := range []intRange{
		{"-replicas", int64(f.replicas), 1, 16},
		{"-buyers", int64(f.buyers), 1, 64},
		{"-stock", f.stock, 1, 1_000_000},
		{"-ttl-ms", int64(f.ttlMS), 100, 10_000},
		{"-work-ms", int64(f.workMS), 0, 1000},
		{"-replica-nice", int64(f.nice), 0, 19},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("%s %d: want %d to %d", r.flag, r.v, r.lo, r.hi)
		}
	}
	if f.meanGap < 100*time.Millisecond {
		return fmt.Errorf("-mean-gap %v: at least 100ms", f.meanGap)
	}
	if _, err := f.kinds(); err != nil {
		return fmt.Errorf("-faults: %v", err)
	}
	if n := len(config.List(f.zk)); f.zkEnsemble && n != 3 {
		return fmt.Errorf("-zk-ensemble: -zk-servers lists %d servers, an ensemble of services.sh has 3", n)
	}
	if f.targets != "" {
		if _, err := load.ParseTargets(f.targets); err != nil {
			return fmt.Errorf("-targets: %v", err)
		}
	}
	return nil
}

// kinds are the fault kinds -faults names.
func (f chaosFlags) kinds() ([]string, error) {
	if f.faults == "all" {
		return Kinds, nil
	}
	var out []string
	for _, k := range config.List(f.faults) {
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %s)", k, strings.Join(Kinds, ", "))
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
	// What shapes the plan besides the schedule's flags: the configurations
	// (which strategies run, fenced only or not) and the kinds they allow.
	if f.fencedOnly {
		args = append(args, "--fenced-only")
	}
	if f.combine != "all" {
		args = append(args, "--combine", strconv.Quote(f.combine))
	}
	if f.zkEnsemble {
		args = append(args, "--zk-servers", f.zk, "--zk-ensemble")
	}
	if f.sentinels != config.DefaultSentinelAddrs {
		args = append(args, "--sentinel-addrs", strconv.Quote(f.sentinels))
	}
	return strings.Join(args, " ")
}
