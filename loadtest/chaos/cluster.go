package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// cluster is the chaos run's own replicas: `shop serve` processes whose
// every backend connection goes through a toxiproxy proxy of this process
// (one per replica and backend, so one replica can be cut off alone), with
// faults on. A replica that dies (kill_process) is started again.
type cluster struct {
	shop     string // the shop binary
	nice     int    // scheduling niceness of the replicas (0: as this process)
	logDir   string
	env      []string // common environment of the replicas
	stderr   io.Writer
	proxies  *toxiproxy.ApiServer
	replicas []*replica

	mu       sync.Mutex
	stopping bool
	wg       sync.WaitGroup
}

// replica is one shop process of the cluster.
type replica struct {
	name    string
	addr    string // host:port it serves on
	url     string
	proxies map[string]*netProxy // backend name -> its proxy
	env     []string
	args    []string // `serve` and its backends' flags

	mu         sync.Mutex
	cmd        *exec.Cmd
	restarts   int
	quickExits int // exits within 2 s of a start, in a row
}

// netProxy is one replica's proxy to one backend; cuts may overlap, so
// they are counted and the proxy comes back when the last one ends.
type netProxy struct {
	p    *toxiproxy.Proxy
	mu   sync.Mutex
	cuts int
}

// backendAddrs are the real backends the proxies lead to, and the
// Sentinels of redis-sentinel, which are not proxied: they name the
// master's own address, which the replicas then dial directly.
type backendAddrs struct {
	Redis          string
	Redlock        []string
	ZK             []string // one server, or the servers of an ensemble
	Etcd           string
	Sentinels      []string
	SentinelMaster string
	ZKEnsemble     bool // ZK is services.sh's ensemble: kill_zk_server may kill its servers
}

// backendNames lists the proxied backends, as fault events name them.
func (b backendAddrs) backendNames() []string {
	var out []string
	if b.Redis != "" {
		out = append(out, "redis")
	}
	for i := range b.Redlock {
		out = append(out, fmt.Sprintf("redlock-%d", i+1))
	}
	out = append(out, b.zkNames()...)
	if b.Etcd != "" {
		out = append(out, "etcd")
	}
	return out
}

// zkNames names the ZooKeeper servers: zookeeper for one, zookeeper-1..N
// for an ensemble (each server proxied on its own, so that a network fault
// can cut a replica off one server of three).
func (b backendAddrs) zkNames() []string {
	if len(b.ZK) == 1 {
		return []string{"zookeeper"}
	}
	var out []string
	for i := range b.ZK {
		out = append(out, fmt.Sprintf("zookeeper-%d", i+1))
	}
	return out
}

func (b backendAddrs) upstream(name string) string {
	var i int
	switch {
	case name == "redis":
		return b.Redis
	case name == "zookeeper":
		return b.ZK[0]
	case name == "etcd":
		return b.Etcd
	case strings.HasPrefix(name, "zookeeper-"):
		fmt.Sscanf(name, "zookeeper-%d", &i)
		return b.ZK[i-1]
	default:
		fmt.Sscanf(name, "redlock-%d", &i)
		return b.Redlock[i-1]
	}
}

// startCluster starts n replicas over the backends, each behind its own
// proxies, and waits until every one answers /healthz.
func startCluster(ctx context.Context, n, nice int, shop, logDir, dsn, token string, b backendAddrs, stderr io.Writer) (*cluster, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	c := &cluster{shop: shop, nice: nice, logDir: logDir, stderr: stderr,
		proxies: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())}
	// No per-IP limit on the order routes: every buyer of the run comes
	// from this machine, and the run judges faults, not that limit.
	c.env = append(os.Environ(), config.EnvMySQLDSN+"="+dsn, config.EnvFaults+"=on", config.EnvAdminToken+"="+token,
		config.EnvOrderRateIP+"=0")
	for i := 0; i < n; i++ {
		r, err := c.newReplica(i, b)
		if err != nil {
			c.stop()
			return nil, err
		}
		c.replicas = append(c.replicas, r)
		if err := c.start(r); err != nil {
			c.stop()
			return nil, err
		}
	}
	for _, r := range c.replicas {
		if err := waitHealthy(ctx, r.url, healthBound); err != nil {
			c.stop()
			return nil, fmt.Errorf("%s: %w (log %s)", r.name, err, c.logPath(r))
		}
	}
	return c, nil
}

func (c *cluster) newReplica(i int, b backendAddrs) (*replica, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	r := &replica{name: fmt.Sprintf("shop-%d", i+1), addr: addr, url: "http://" + addr, proxies: map[string]*netProxy{}}
	listen := map[string]string{}
	for _, name := range b.backendNames() {
		p := toxiproxy.NewProxy(c.proxies, r.name+"-"+name, "127.0.0.1:0", b.upstream(name))
		if err := c.proxies.Collection.Add(p, true); err != nil {
			return nil, fmt.Errorf("proxy %s -> %s: %w", p.Name, p.Upstream, err)
		}
		r.proxies[name] = &netProxy{p: p}
		listen[name] = p.Listen
	}
	var redlock, zk []string
	for i := range b.Redlock {
		redlock = append(redlock, listen[fmt.Sprintf("redlock-%d", i+1)])
	}
	for _, name := range b.zkNames() {
		zk = append(zk, listen[name])
	}
	r.env = []string{config.EnvHTTPAddr + "=" + addr, "SECKILL_REPLICA_ID=chaos-" + r.name}
	// Flags rather than the environment: an empty value is "none" for a
	// flag, and the default for the environment.
	r.args = []string{"serve", "--redis-addr", listen["redis"], "--redlock-addrs", strings.Join(redlock, ","),
		"--zk-servers", strings.Join(zk, ","), "--etcd-endpoints", listen["etcd"],
		"--sentinel-addrs", strings.Join(b.Sentinels, ","), "--sentinel-master", b.SentinelMaster}
	return r, nil
}

func (c *cluster) logPath(r *replica) string { return filepath.Join(c.logDir, r.name+".log") }

// start runs r's process and watches it: when it exits while the run goes
// on (kill_process), it is started again on the same port.
func (c *cluster) start(r *replica) error {
	logf, err := os.OpenFile(c.logPath(r), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.shop, r.args...)
	if c.nice > 0 { // nice execs the shop: the pid stays the shop's
		cmd = exec.Command("nice", append([]string{"-n", strconv.Itoa(c.nice), c.shop}, r.args...)...)
	}
	cmd.Env = append(append([]string{}, c.env...), r.env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Under c.mu: stop either sees this process in r.cmd or this start sees
	// stopping, never neither (a process nobody stops would hang stop).
	c.mu.Lock()
	if c.stopping {
		c.mu.Unlock()
		logf.Close()
		return errStopping
	}
	if err := cmd.Start(); err != nil {
		c.mu.Unlock()
		logf.Close()
		return fmt.Errorf("starting %s (%s serve): %w", r.name, c.shop, err)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.mu.Unlock()
	c.wg.Add(1)
	c.mu.Unlock()
	go c.watch(r, cmd, logf, time.Now())
	return nil
}

// watch waits for r's process to exit and, unless the run is stopping,
// starts it again. A replica that keeps dying at once (its port taken, the
// database gone) is given up after 10 tries in a row rather than respawned
// for ever.
func (c *cluster) watch(r *replica, cmd *exec.Cmd, logf *os.File, started time.Time) {
	defer c.wg.Done()
	err := cmd.Wait()
	logf.Close()
	c.mu.Lock()
	stopping := c.stopping
	c.mu.Unlock()
	if stopping {
		return
	}
	if quick := r.exited(time.Since(started) < 2*time.Second); quick >= 10 {
		fmt.Fprintf(c.stderr, "chaos: %s died at start 10 times in a row (%v); not restarting it (log %s)\n", r.name, err, c.logPath(r))
		return
	}
	fmt.Fprintf(c.stderr, "chaos: %s exited (%v); starting it again\n", r.name, err)
	for i := 0; i < 50; i++ {
		err := c.start(r)
		if err == nil || errors.Is(err, errStopping) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Fprintf(c.stderr, "chaos: %s could not be restarted\n", r.name)
}

// exited counts an exit of r's process (quick: soon after its start) and
// returns how many quick exits came in a row.
func (r *replica) exited(quick bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.restarts++
	if quick {
		r.quickExits++
	} else {
		r.quickExits = 0
	}
	return r.quickExits
}

// errStopping: the run is stopping its replicas; none is started.
var errStopping = errors.New("chaos: stopping")

// restartCount is how many times the run started r again.
func (r *replica) restartCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

// urls are the replicas' base URLs.
func (c *cluster) urls() []string {
	out := make([]string, len(c.replicas))
	for i, r := range c.replicas {
		out[i] = r.url
	}
	return out
}

// waitAllHealthy waits until every replica answers /healthz again (after the
// faults: a restarted or stopped one comes back).
func (c *cluster) waitAllHealthy(ctx context.Context) error {
	for _, r := range c.replicas {
		if err := waitHealthy(ctx, r.url, healthBound); err != nil {
			return fmt.Errorf("%s: %w (log %s)", r.name, err, c.logPath(r))
		}
	}
	return nil
}

// stop stops the replicas (SIGINT, then SIGKILL after 20 s; SIGCONT first,
// in case one is stopped) and the proxies.
func (c *cluster) stop() {
	c.mu.Lock()
	c.stopping = true
	c.mu.Unlock()
	for _, r := range c.replicas {
		r.mu.Lock()
		cmd := r.cmd
		r.mu.Unlock()
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGCONT)
			_ = cmd.Process.Signal(os.Interrupt)
			p := cmd.Process
			t := time.AfterFunc(20*time.Second, func() { _ = p.Kill() })
			defer t.Stop()
		}
	}
	c.wg.Wait()
	for _, r := range c.replicas {
		for _, np := range r.proxies {
			np.p.Stop()
		}
	}
}

// cut resets the proxy's connections and refuses new ones for d.
func (np *netProxy) cut(ctx context.Context, d time.Duration) {
	np.mu.Lock()
	np.cuts++
	if np.cuts == 1 {
		np.p.Stop()
	}
	np.mu.Unlock()
	load.Sleep(ctx, d)
	np.mu.Lock()
	np.cuts--
	if np.cuts == 0 {
		if err := np.p.Start(); err != nil && !errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
			// The port was taken meanwhile: nothing to do but say so.
			fmt.Fprintf(os.Stderr, "chaos: proxy %s did not come back: %v\n", np.p.Name, err)
		}
	}
	np.mu.Unlock()
}

// toxic adds a toxic (latency, or timeout 0: a black hole) for d, both ways.
func (np *netProxy) toxic(ctx context.Context, name, kind string, attrs string, d time.Duration) error {
	var added []string
	for _, stream := range []string{"upstream", "downstream"} {
		js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name+"-"+stream, kind, stream, attrs)
		if _, err := np.p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
			for _, n := range added {
				_ = np.p.Toxics.RemoveToxic(context.Background(), n)
			}
			return err
		}
		added = append(added, name+"-"+stream)
	}
	load.Sleep(ctx, d)
	for _, n := range added {
		_ = np.p.Toxics.RemoveToxic(context.Background(), n)
	}
	return nil
}

// healthBound is how long a replica may take to answer /healthz after its
// start. Generous: make test runs the replicas niced (--replica-nice) and
// race-built beside every other package's tests and the browser test, and
// twice a replica took more than 90 s to connect to its backends there
// (it answered in seconds on the same machine alone). Nothing is judged
// on how long it took.
const healthBound = 4 * time.Minute

// freeAddr is a loopback address with a port nobody listens on now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitHealthy polls url/healthz until it answers 200.
func waitHealthy(ctx context.Context, url string, bound time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not healthy at %s/healthz within %v", url, bound)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
