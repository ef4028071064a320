package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// testToken is the admin token of the test replica: creating sales through
// it exercises --admin-token.
const testToken = "loadtest-test-token"

// TestRunAgainstShop runs the tool against ONE real `shop serve` over the
// database seckill_test_loadtest: the numbers in its tables must be the
// database's, and its exit code must follow the strategy's safety claim.
func TestRunAgainstShop(t *testing.T) {
	t.Parallel() // its own shop; waits on it most of the time
	shop := startShop(t)

	t.Run("safe strategy: exit 0, JSON schema, DB truth", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "out.json")
		code, stdout, stderr := runTool(t, "--targets", shop, "--strategy", "db-conditional", "--stock", "20",
			"--buyers", "60", "--concurrency", "8", "--admin-token", testToken, "--json", path)
		if code != load.ExitOK {
			t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, load.ClosedNote) {
			t.Errorf("closed-model output does not say that coordinated omission is not corrected:\n%s", stdout)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkSchema(t, raw)
		rep := decodeReport(t, raw)
		if len(rep.Results) != 1 {
			t.Fatalf("%d results, want 1", len(rep.Results))
		}
		r := rep.Results[0]
		v := saleOf(t, r)
		if r.Strategy != "db-conditional" || !r.Safe || r.Model != "closed" || r.Verdict != load.VerdictOK {
			t.Errorf("result %+v, want db-conditional, safe, closed, OK", r)
		}
		if r.Requests != 60 || r.Orders != 20 || r.SoldOut != 40 || r.HardErrors != 0 {
			t.Errorf("requests %d orders %d sold_out %d hard errors %d (errors %v), want 60/20/40/0",
				r.Requests, r.Orders, r.SoldOut, r.HardErrors, r.Errors)
		}
		if v.Sold != 20 || v.Stock != 0 || v.Oversold != 0 || v.LostUpdates != 0 || v.Violations != 0 || v.Duplicates != 0 {
			t.Errorf("database view %+v, want sold 20, stock 0, nothing broken", v)
		}
		if r.LatencyMS.P50 <= 0 || r.LatencyMS.P50 > r.LatencyMS.P99 || r.LatencyMS.P99 > r.LatencyMS.Max {
			t.Errorf("latency %+v: not positive and ordered", r.LatencyMS)
		}
		if rep.Config.Concurrency != 8 || rep.Config.Stock != 20 || rep.Machine.CPUs < 1 {
			t.Errorf("config/machine not recorded: %+v %+v", rep.Config, rep.Machine)
		}
	})

	t.Run("none: expected-unsafe, oversold from the API, exit 0", func(t *testing.T) {
		// 20 buyers at once against 5 units and 50 ms inside an unlocked
		// critical section: they all read the stock before anyone writes.
		path := filepath.Join(t.TempDir(), "out.json")
		code, stdout, stderr := runTool(t, "--targets", shop, "--strategy", "none", "--stock", "5",
			"--buyers", "40", "--concurrency", "20", "--work-ms", "50", "--admin-token", testToken, "--json", path)
		if code != load.ExitOK {
			t.Fatalf("exit %d, want 0: an unsafe strategy overselling is expected\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		r := decodeReport(t, mustRead(t, path)).Results[0]
		v := saleOf(t, r)
		if r.Safe || v.Oversold == 0 || r.Verdict != load.VerdictExpected {
			t.Fatalf("none: safe %v, oversold %d, verdict %q; want unsafe, oversold > 0, %q\n%s",
				r.Safe, v.Oversold, r.Verdict, load.VerdictExpected, stdout)
		}
		if v.Sold != r.Orders {
			t.Errorf("the API counts %d orders, the tool %d 201s", v.Sold, r.Orders)
		}
		if !strings.Contains(stdout, "expected") {
			t.Errorf("table does not say the oversell is expected:\n%s", stdout)
		}
	})
}

// runTool runs `loadtest run args...` in-process.
func runTool(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeReport decodes a --json file strictly: a member the schema does not
// declare is an error.
func decodeReport(t *testing.T, raw []byte) load.Report {
	t.Helper()
	var rep load.Report
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report does not match the schema: %v\n%s", err, raw)
	}
	return rep
}

// saleOf decodes a result's sale view.
func saleOf(t *testing.T, r load.Result) shopapi.SaleView {
	t.Helper()
	var v shopapi.SaleView
	if err := json.Unmarshal(r.Sale, &v); err != nil || v.ID == 0 {
		t.Fatalf("result has no sale view (%v): %s", err, r.Sale)
	}
	return v
}

// startShop builds cmd/shop into a temp dir, starts one `shop serve` on a
// free port over seckill_test_loadtest, waits for /healthz and stops it with
// SIGINT at cleanup. It returns the base URL.
func startShop(t *testing.T, opts ...shopOpt) string {
	t.Helper()
	var o shopOpts
	for _, f := range opts {
		f(&o)
	}
	if o.db == "" {
		o.db = "loadtest"
	}
	dsn := testenv.MySQLDSN(t, o.db) // skips (or fails in CI) without MariaDB
	bin := testenv.Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logPath := filepath.Join(t.TempDir(), "shop.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), o.env...), config.EnvMySQLDSN+"="+dsn, config.EnvHTTPAddr+"="+addr, config.EnvAdminToken+"="+testToken)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !(o.allowKill && killed(cmd)) {
				t.Errorf("shop did not exit cleanly on SIGINT: %v (log %s)", err, logPath)
			}
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("shop did not stop within 20 s of SIGINT")
		}
		logf.Close()
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("shop at %s not healthy within 30 s; log:\n%s", base, mustRead(t, logPath))
	return ""
}

// shopOpts are startShop's options.
type shopOpts struct {
	allowKill bool     // a scenario may SIGKILL this shop (kill_process)
	env       []string // NAME=value pairs over the test's environment
	// db is the test database's short name ("loadtest" unless set). Shops
	// over their own Redis need their own database too: every replica
	// expires the reservations of every sale in its database, and gives the
	// units back to its own Redis.
	db string
}

type shopOpt func(*shopOpts)

// allowKill accepts a shop that died of SIGKILL before the cleanup.
func allowKill(o *shopOpts) { o.allowKill = true }

// withEnv adds NAME=value pairs to the shop's environment.
func withEnv(kv ...string) shopOpt { return func(o *shopOpts) { o.env = append(o.env, kv...) } }

// withDB runs the shop over test database seckill_test_<name>.
func withDB(name string) shopOpt { return func(o *shopOpts) { o.db = name } }

// killed says whether cmd (waited for) died of SIGKILL.
func killed(cmd *exec.Cmd) bool {
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// checkSchema checks raw against the member names the --json document
// promises, independently of the Go types (a renamed tag must fail here).
func checkSchema(t *testing.T, raw []byte) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	need := func(where string, m map[string]any, keys ...string) {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: member %q missing", where, k)
			}
		}
	}
	obj := func(v any, where string) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s is %T, want an object", where, v)
		}
		return m
	}
	need("document", doc, "started_at", "machine", "config", "results")
	if _, err := time.Parse(time.RFC3339, fmt.Sprint(doc["started_at"])); err != nil {
		t.Errorf("started_at: %v", err)
	}
	need("machine", obj(doc["machine"], "machine"), "cpus", "goos", "goarch")
	need("config", obj(doc["config"], "config"), "targets", "strategy", "stock", "buyers", "concurrency", "rate",
		"work_ms", "ttl_ms", "fencing", "per_user_limit", "max_error_rate", "model")
	results, ok := doc["results"].([]any)
	if !ok || len(results) == 0 {
		t.Fatalf("results is %T of %v, want a non-empty array", doc["results"], doc["results"])
	}
	r := obj(results[0], "results[0]")
	need("results[0]", r, "strategy", "safe", "requests", "orders", "sold_out", "errors", "duration_s",
		"requests_per_s", "orders_per_s", "latency_ms", "model", "sale", "verdict")
	obj(r["errors"], "errors")
	need("latency_ms", obj(r["latency_ms"], "latency_ms"), "p50", "p95", "p99", "max")
	need("sale", obj(r["sale"], "sale"), "id", "initial_stock", "stock", "sold", "oversold", "lost_updates",
		"duplicates", "violations", "fenced_writes")
}
