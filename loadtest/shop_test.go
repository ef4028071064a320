package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		// The sold-out cache answers in front of the order flow: only the
		// answers the order flow gave are in the history.
		if r.History == nil || r.History.Verdict != "linearizable" || int64(r.History.Operations) != r.Layers["database"] {
			t.Errorf("history %+v, want linearizable over the %d requests the order flow answered", r.History, r.Layers["database"])
		}
		if !strings.Contains(stdout, "linearizable?  ") {
			t.Errorf("the output shows no history verdict:\n%s", stdout)
		}
		if v.Verdict == nil || v.Verdict.Kind != "holds" || !strings.Contains(stdout, "holds: no critical sections overlapped") {
			t.Errorf("the sale's verdict %+v is not holds, or the output does not print it:\n%s", v.Verdict, stdout)
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
		if r.History == nil || r.History.Verdict != "not_linearizable" || len(r.History.Witness) != 6 {
			t.Errorf("an oversold sale's history %+v, want not_linearizable with a witness of 6 orders", r.History)
		}
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

// startShop starts one `shop serve` over seckill_test_loadtest (or
// withDB's), with the admin token testToken, healthy before it returns and
// stopped with SIGINT at cleanup. It returns the base URL.
func startShop(t *testing.T, opts ...shopOpt) string {
	t.Helper()
	o := testenv.ShopOptions{DB: "loadtest", AdminToken: testToken}
	for _, f := range opts {
		f(&o)
	}
	return testenv.StartShop(t, o).URL
}

type shopOpt func(*testenv.ShopOptions)

// allowKill accepts a shop that died of SIGKILL before the cleanup (a
// scenario's kill_process).
func allowKill(o *testenv.ShopOptions) { o.AllowKill = true }

// withEnv adds NAME=value pairs to the shop's environment.
func withEnv(kv ...string) shopOpt {
	return func(o *testenv.ShopOptions) { o.Env = append(o.Env, kv...) }
}

// withDB runs the shop over test database seckill_test_<name>. Shops over
// their own Redis need their own database too: every replica expires the
// reservations of every sale in its database, and gives the units back to
// its own Redis.
func withDB(name string) shopOpt { return func(o *testenv.ShopOptions) { o.DB = name } }

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
		"duplicates", "violations", "fenced_writes", "verdict")
	need("sale.verdict", obj(obj(r["sale"], "sale")["verdict"], "sale.verdict"), "kind", "reason_en", "reason_zh")
}
