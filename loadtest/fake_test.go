package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// fakeShop mimics the shop's HTTP surface: enough to test the TOOL's
// counting and exit logic with answers a real shop only gives when it is
// broken (a safe strategy overselling).
type fakeShop struct {
	strategies []shopapi.StrategyInfo
	// answer decides the reply to the n-th order (0-based): status and code.
	answer func(n int64) (int, string)
	final  shopapi.SaleView // GET /api/sales/1 (id is forced to 1)
	token  string           // when set, POST /api/sales needs "Bearer <token>"

	orders atomic.Int64 // orders received
	mu     sync.Mutex
	sales  int // sales created
	users  map[string]bool
}

func (f *fakeShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/strategies":
		reply(http.StatusOK, f.strategies)
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales" && f.token != "" && r.Header.Get("Authorization") != "Bearer "+f.token:
		reply(http.StatusUnauthorized, shopapi.APIErrorBody{Error: "unauthorized", Message: "fake"})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales":
		var req shopapi.SaleRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		f.sales++
		f.mu.Unlock()
		reply(http.StatusCreated, shopapi.SaleView{ID: 1, InitialStock: req.Stock, Stock: req.Stock})
	case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
		var req struct {
			UserID string `json:"user_id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		if f.users == nil {
			f.users = map[string]bool{}
		}
		f.users[req.UserID] = true
		f.mu.Unlock()
		status, code := f.answer(f.orders.Add(1) - 1)
		if status == http.StatusCreated {
			reply(status, map[string]any{"order_id": 1})
			return
		}
		reply(status, shopapi.APIErrorBody{Error: code, Message: "fake"})
	case r.Method == http.MethodGet && r.URL.Path == "/api/sales/1":
		v := f.final
		v.ID = 1
		reply(http.StatusOK, v)
	default:
		reply(http.StatusNotFound, shopapi.APIErrorBody{Error: "not_found"})
	}
}

// soldAfter answers 201 to the first stock orders, then sold_out.
func soldAfter(stock int64) func(int64) (int, string) {
	return func(n int64) (int, string) {
		if n < stock {
			return http.StatusCreated, ""
		}
		return http.StatusConflict, "sold_out"
	}
}

// counts returns the sales created and the distinct buyers seen.
func (f *fakeShop) counts() (sales, users int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sales, len(f.users)
}

func startFake(t *testing.T, f *fakeShop) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

var fakeStrategies = []shopapi.StrategyInfo{
	{Name: "fake-safe", Safe: true, Available: true},
	{Name: "fake-unsafe", Safe: false, Available: true},
	{Name: "fake-unavailable", Safe: true, Available: false, Needs: []string{"zookeeper"}},
}

// TestExitCodeFromVerdicts: exit 1 exactly when a safe strategy's sale shows
// broken exclusion or hard errors pass the limit; refusals and an unsafe
// strategy's oversell never fail the run.
func TestExitCodeFromVerdicts(t *testing.T) {
	errorsEvery := func(every int64, status int, code string) func(int64) (int, string) {
		return func(n int64) (int, string) {
			if n%every == 0 {
				return status, code
			}
			return soldAfter(10)(n)
		}
	}
	tests := []struct {
		name     string
		strategy string
		answer   func(int64) (int, string)
		final    shopapi.SaleView
		extra    []string
		code     int
		verdict  string
	}{
		{"safe and clean", "fake-safe", soldAfter(10), shopapi.SaleView{Sold: 10}, nil, load.ExitOK, load.VerdictOK},
		{"safe oversold", "fake-safe", soldAfter(13), shopapi.SaleView{Sold: 13, Oversold: 3}, nil, load.ExitFail, load.VerdictOversold},
		{"safe with violations", "fake-safe", soldAfter(10), shopapi.SaleView{Sold: 10, Violations: 2}, nil, load.ExitFail, load.VerdictViolations},
		{"safe with lost updates", "fake-safe", soldAfter(10), shopapi.SaleView{Sold: 10, LostUpdates: 1}, nil, load.ExitFail, load.VerdictViolations},
		{"unsafe oversold is expected", "fake-unsafe", soldAfter(30), shopapi.SaleView{Sold: 30, Oversold: 20}, nil, load.ExitOK, load.VerdictExpected},
		{"refusals are not errors", "fake-safe", errorsEvery(2, http.StatusServiceUnavailable, "lock_timeout"), shopapi.SaleView{Sold: 10}, nil, load.ExitOK, load.VerdictOK},
		{"5xx over the limit", "fake-safe", errorsEvery(10, http.StatusInternalServerError, "internal"), shopapi.SaleView{Sold: 10}, nil, load.ExitFail, load.VerdictErrors},
		{"5xx under a raised limit", "fake-safe", errorsEvery(10, http.StatusInternalServerError, "internal"), shopapi.SaleView{Sold: 10},
			[]string{"--max-error-rate", "20%"}, load.ExitOK, load.VerdictOK},
		{"503 without a shop code is a hard error", "fake-safe", errorsEvery(10, http.StatusServiceUnavailable, ""), shopapi.SaleView{Sold: 10}, nil, load.ExitFail, load.VerdictErrors},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeShop{strategies: fakeStrategies, answer: tc.answer, final: tc.final}
			path := filepath.Join(t.TempDir(), "out.json")
			args := append([]string{"--targets", startFake(t, f), "--strategy", tc.strategy, "--stock", "10",
				"--buyers", "100", "--concurrency", "4", "--json", path}, tc.extra...)
			code, stdout, stderr := runTool(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			r := decodeReport(t, mustRead(t, path)).Results[0]
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", r.Verdict, tc.verdict)
			}
			if _, users := f.counts(); r.Requests != 100 || f.orders.Load() != 100 || users != 100 {
				t.Errorf("requests %d, orders received %d, distinct users %d: want 100 of each (one attempt per buyer)",
					r.Requests, f.orders.Load(), users)
			}
			var sum int64 = r.Orders + r.SoldOut
			for _, n := range r.Errors {
				sum += n
			}
			if sum != r.Requests {
				t.Errorf("outcomes add up to %d, requests %d: %+v", sum, r.Requests, r)
			}
		})
	}
}

// TestRoundRobinAndAll: the sale is created on the first target only, buyers
// are split evenly, and "all" runs every strategy available everywhere.
func TestRoundRobinAndAll(t *testing.T) {
	a := &fakeShop{strategies: fakeStrategies, answer: soldAfter(1000), final: shopapi.SaleView{Sold: 30}}
	b := &fakeShop{strategies: fakeStrategies, answer: soldAfter(1000)}
	code, stdout, stderr := runTool(t, "--targets", startFake(t, a)+","+startFake(t, b), "--strategy", "all",
		"--stock", "30", "--buyers", "30", "--concurrency", "3")
	if code != load.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Two strategies (fake-unavailable is skipped), 15 buyers each per target.
	if sa, _ := a.counts(); sa != 2 {
		t.Errorf("sales created on the first target: %d, want 2", sa)
	}
	if sb, _ := b.counts(); sb != 0 {
		t.Errorf("sales created on the second target: %d, want 0", sb)
	}
	if a.orders.Load() != 30 || b.orders.Load() != 30 {
		t.Errorf("orders per target: %d and %d, want 30 and 30", a.orders.Load(), b.orders.Load())
	}
	if !strings.Contains(stderr, "skipping fake-unavailable") {
		t.Errorf("the unavailable strategy was not reported as skipped:\n%s", stderr)
	}
	if !strings.Contains(stdout, "== comparison") || strings.Count(stdout, "fake-") < 4 {
		t.Errorf("no comparison table with both strategies:\n%s", stdout)
	}
}

// TestCreateSaleRefused: a sale the shop refuses fails the run (FAILED,
// exit 1) with the shop's reason and the fix; the token is then accepted.
func TestCreateSaleRefused(t *testing.T) {
	t.Setenv("SECKILL_ADMIN_TOKEN", "")
	f := &fakeShop{strategies: fakeStrategies, answer: soldAfter(10), final: shopapi.SaleView{Sold: 10}, token: "s3cret"}
	target := startFake(t, f)
	code, stdout, stderr := runTool(t, "--targets", target, "--strategy", "fake-safe", "--stock", "10", "--buyers", "20")
	if code != load.ExitFail || !strings.Contains(stdout, load.VerdictFailed) || !strings.Contains(stdout, "--admin-token") {
		t.Fatalf("without the token: exit %d, want 1 with FAILED and a hint\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if f.orders.Load() != 0 {
		t.Errorf("%d orders sent for a sale that was never created", f.orders.Load())
	}
	t.Setenv("SECKILL_ADMIN_TOKEN", "s3cret")
	if code, stdout, stderr := runTool(t, "--targets", target, "--strategy", "fake-safe", "--stock", "10", "--buyers", "20"); code != load.ExitOK {
		t.Fatalf("with the token from the environment: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
