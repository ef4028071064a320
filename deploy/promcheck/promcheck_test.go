package promcheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

const (
	root      = "../.."
	promDir   = root + "/deploy/prometheus"
	boardFile = root + "/deploy/grafana/dashboards/seckill.json"
	replicas  = 3
)

// tools finds prometheus and promtool: absent, the test fails in CI and is
// skipped elsewhere (scripts/services.sh up installs Debian's package).
func tools(t *testing.T) (prom, promtool string) {
	t.Helper()
	testenv.SkipInShort(t)
	var err error
	if prom, err = exec.LookPath("prometheus"); err == nil {
		promtool, err = exec.LookPath("promtool")
	}
	if err != nil {
		testenv.Unavailable(t, "prometheus (Debian's package)", err)
	}
	return prom, promtool
}

// promtool check config and check rules pass on both scrape
// configurations (one machine or compose, and a cluster) and the rules.
func TestPromtoolChecks(t *testing.T) {
	_, promtool := tools(t)
	for _, args := range [][]string{
		{"check", "config", filepath.Join(promDir, "prometheus.yml")},
		{"check", "config", filepath.Join(promDir, "prometheus-k8s.yml")},
		{"check", "rules", filepath.Join(promDir, "rules.yml")},
	} {
		if out, err := exec.Command(promtool, args...).CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// The board and the rules against a running demo: every query returns data.
func TestEveryQueryReturnsData(t *testing.T) {
	prom, _ := tools(t)
	queries := boardQueries(t)
	queries = append(queries, ruleSignals(t)...)
	t.Logf("%d queries", len(queries))

	base := startDemo(t)
	urls := make([]string, replicas)
	addrs := make([]string, replicas)
	for i := range urls {
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i))
		urls[i] = "http://" + addrs[i]
	}
	api := startPrometheus(t, prom, addrs)
	// Every replica scraped once before the fault: a counter's first
	// sample already at 1 shows no increase, and the annotation nothing.
	testenv.WaitFor(t, 60*time.Second, "prometheus to scrape every replica", func() bool {
		n, err := instant(api, `seckill_faults_injected_total{kind="slow_work"} == 0`)
		return err == nil && n == replicas
	})
	load(t, urls)
	fault(t, urls[0])

	// The load is over; a few scrapes later every query has had its data. A
	// query counts once it returned some: the annotation's one-minute window
	// slides past the fault while a slow query is waited for.
	empty := queries
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		var still []query
		for _, q := range empty {
			n, err := instant(api, q.expr)
			if err != nil {
				t.Fatalf("%s: %s: %v", q.what, q.expr, err)
			}
			if n == 0 {
				still = append(still, q)
			}
		}
		empty = still
		if len(empty) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, q := range empty {
		t.Errorf("no data within a minute of the load: %s: %s", q.what, q.expr)
	}
}

// query is one expression and where it comes from.
type query struct{ what, expr string }

// boardQueries are the dashboard's panel targets and annotations, with
// Grafana's variables as a run over every strategy sees them.
func boardQueries(t *testing.T) []query {
	t.Helper()
	b, err := os.ReadFile(boardFile)
	if err != nil {
		t.Fatal(err)
	}
	var board struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr  string `json:"expr"`
				RefID string `json:"refId"`
			} `json:"targets"`
		} `json:"panels"`
		Annotations struct {
			List []struct {
				Name string `json:"name"`
				Expr string `json:"expr"`
			} `json:"list"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(b, &board); err != nil {
		t.Fatal(err)
	}
	grafanaVars := strings.NewReplacer("$strategy", ".+", "$__rate_interval", "1m", "$__interval", "15s")
	var out []query
	for _, p := range board.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, query{"panel " + p.Title + " " + tg.RefID, grafanaVars.Replace(tg.Expr)})
		}
	}
	for _, a := range board.Annotations.List {
		if a.Expr != "" {
			out = append(out, query{"annotation " + a.Name, grafanaVars.Replace(a.Expr)})
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d queries read from %s", len(out), boardFile)
	}
	return out
}

// alertForm is every alert's expression: a signal compared with a threshold.
var alertForm = regexp.MustCompile(`^(.+?)\s*(>|>=|<|<=|!=|==)\s*[0-9.]+$`)

// ruleSignals are the rules' expressions: a recording rule's whole, an
// alert's signal (healthy, the alert itself returns nothing).
func ruleSignals(t *testing.T) []query {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(promDir, "rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert  string `json:"alert"`
				Record string `json:"record"`
				Expr   string `json:"expr"`
			} `json:"rules"`
		} `json:"groups"`
	}
	if err := yaml.Unmarshal(b, &rules); err != nil { // promtool check rules is the strict reader
		t.Fatal(err)
	}
	var out []query
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				out = append(out, query{"record " + r.Record, r.Expr})
				continue
			}
			m := alertForm.FindStringSubmatch(strings.TrimSpace(r.Expr))
			if m == nil {
				t.Errorf("alert %s: %q is not <signal> <comparison> <threshold>", r.Alert, r.Expr)
				continue
			}
			out = append(out, query{"alert " + r.Alert, m[1]})
		}
	}
	return out
}

// startDemo runs `shop demo` with three replicas and no agents on free
// ports, its own database and faults on; it returns the first port.
func startDemo(t *testing.T) int {
	t.Helper()
	dsn := testenv.MySQLDSN(t, "promcheck")
	shop := testenv.Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
	testenv.Binary(t, "github.com/seckill-lab/seckill/loadtest") // the demo looks for it beside shop
	base := freeBase(t, replicas)
	cmd := exec.Command(shop, "demo", "-replicas", strconv.Itoa(replicas), "-agents", "0", "-log-dir", t.TempDir())
	cmd.Env = append(withoutToken(), config.EnvHTTPAddr+"=127.0.0.1:"+strconv.Itoa(base),
		config.EnvMySQLDSN+"="+dsn, config.EnvFaults+"=on")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	up := make(chan bool, 1)
	var mu sync.Mutex
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !said && strings.HasPrefix(sc.Text(), "Dashboard: ") {
				said = true
				up <- true
			}
		}
		close(up)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(45 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	select {
	case ok := <-up:
		if ok {
			return base
		}
	case <-time.After(90 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("shop demo did not come up:\n%s", log.String())
	return 0
}

func withoutToken() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, config.EnvAdminToken+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// freeBase finds a port p with p..p+n-1 free on 127.0.0.1.
func freeBase(t *testing.T, n int) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p+n > 65535 {
			continue
		}
		free := true
		for k := 1; k < n && free; k++ {
			if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+k))); err != nil {
				free = false
			} else {
				l.Close()
			}
		}
		if free {
			return p
		}
	}
	t.Fatal("no free port range")
	return 0
}

// startPrometheus runs prometheus with the repository's prometheus.yml and
// rules.yml, the replicas as its file_sd targets, and returns its URL.
func startPrometheus(t *testing.T, prom string, targets []string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"prometheus.yml", "rules.yml"} {
		b, err := os.ReadFile(filepath.Join(promDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sd, _ := json.Marshal([]map[string]any{{"targets": targets, "labels": map[string]string{"stack": "test"}}})
	if err := os.MkdirAll(filepath.Join(dir, "targets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "targets", "test.json"), sd, 0o644); err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(freeBase(t, 1)))
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, prom, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus's log:\n%s", b)
		}
	})
	api := "http://" + addr
	testenv.WaitFor(t, 30*time.Second, "prometheus to be ready", func() bool {
		r, err := http.Get(api + "/-/ready")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	})
	return api
}

// load runs a short load through every replica: a lock strategy (lock wait,
// critical section) and an async sale (the queue and the reconciliation).
// Timeouts on a loaded machine are no concern here (--max-error-rate 50%):
// the figures are; an oversell still fails the run.
func load(t *testing.T, urls []string) {
	t.Helper()
	lt := testenv.Binary(t, "github.com/seckill-lab/seckill/loadtest")
	targets := strings.Join(urls, ",")
	for _, args := range [][]string{
		{"run", "--targets", targets, "--strategy", "redis", "--buyers", "300", "--stock", "100", "--concurrency", "20", "--work-ms", "1", "--max-error-rate", "50%"},
		{"run", "--targets", targets, "--strategy", "redis-lua-stock", "--order-mode", "async", "--buyers", "300", "--stock", "100", "--concurrency", "20", "--max-error-rate", "50%"},
	} {
		cmd := exec.Command(lt, args...)
		cmd.Env = withoutToken()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("loadtest %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// fault injects one harmless fault, for the board's fault annotations.
func fault(t *testing.T, replica string) {
	t.Helper()
	r, err := http.Post(replica+"/api/faults", "application/json", strings.NewReader(`{"kind":"slow_work","ms":50}`))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if b, _ := io.ReadAll(r.Body); r.StatusCode/100 != 2 {
		t.Fatalf("POST /api/faults: %d %s", r.StatusCode, b)
	}
}

// instant evaluates expr now and returns how many series it gave.
func instant(api, expr string) (int, error) {
	r, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer r.Body.Close()
	var res struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&res); err != nil {
		return 0, err
	}
	if res.Status != "success" {
		return 0, fmt.Errorf("%s: %s", res.Status, res.Error)
	}
	return len(res.Data.Result), nil
}
