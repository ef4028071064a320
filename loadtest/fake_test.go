package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/internal/fakeshop"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

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
			return fakeshop.SoldAfter(10)(n)
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
		{"safe and clean", "fake-safe", fakeshop.SoldAfter(10), shopapi.SaleView{Sold: 10}, nil, load.ExitOK, load.VerdictOK},
		{"safe oversold", "fake-safe", fakeshop.SoldAfter(13), shopapi.SaleView{Sold: 13, Oversold: 3}, nil, load.ExitFail, load.VerdictOversold},
		{"safe with violations", "fake-safe", fakeshop.SoldAfter(10), shopapi.SaleView{Sold: 10, Violations: 2}, nil, load.ExitFail, load.VerdictViolations},
		{"safe with lost updates", "fake-safe", fakeshop.SoldAfter(10), shopapi.SaleView{Sold: 10, LostUpdates: 1}, nil, load.ExitFail, load.VerdictViolations},
		{"unsafe oversold is expected", "fake-unsafe", fakeshop.SoldAfter(30), shopapi.SaleView{Sold: 30, Oversold: 20}, nil, load.ExitOK, load.VerdictExpected},
		{"refusals are not errors", "fake-safe", errorsEvery(2, http.StatusServiceUnavailable, "lock_timeout"), shopapi.SaleView{Sold: 10}, nil, load.ExitOK, load.VerdictOK},
		{"5xx over the limit", "fake-safe", errorsEvery(10, http.StatusInternalServerError, "internal"), shopapi.SaleView{Sold: 10}, nil, load.ExitFail, load.VerdictErrors},
		{"5xx under a raised limit", "fake-safe", errorsEvery(10, http.StatusInternalServerError, "internal"), shopapi.SaleView{Sold: 10},
			[]string{"--max-error-rate", "20%"}, load.ExitOK, load.VerdictOK},
		{"503 without a shop code is a hard error", "fake-safe", errorsEvery(10, http.StatusServiceUnavailable, ""), shopapi.SaleView{Sold: 10}, nil, load.ExitFail, load.VerdictErrors},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeshop.Shop{Strategies: fakeStrategies, Answer: tc.answer, Final: tc.final}
			path := filepath.Join(t.TempDir(), "out.json")
			args := append([]string{"--targets", fakeshop.Start(t, f), "--strategy", tc.strategy, "--stock", "10",
				"--buyers", "100", "--concurrency", "4", "--json", path}, tc.extra...)
			code, stdout, stderr := runTool(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			r := decodeReport(t, mustRead(t, path)).Results[0]
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", r.Verdict, tc.verdict)
			}
			if _, users := f.Counts(); r.Requests != 100 || f.Orders() != 100 || users != 100 {
				t.Errorf("requests %d, orders received %d, distinct users %d: want 100 of each (one attempt per buyer)",
					r.Requests, f.Orders(), users)
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
	a := &fakeshop.Shop{Strategies: fakeStrategies, Answer: fakeshop.SoldAfter(1000), Final: shopapi.SaleView{Sold: 30}}
	b := &fakeshop.Shop{Strategies: fakeStrategies, Answer: fakeshop.SoldAfter(1000)}
	code, stdout, stderr := runTool(t, "--targets", fakeshop.Start(t, a)+","+fakeshop.Start(t, b), "--strategy", "all",
		"--stock", "30", "--buyers", "30", "--concurrency", "3")
	if code != load.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// Two strategies (fake-unavailable is skipped), 15 buyers each per target.
	if sa, _ := a.Counts(); sa != 2 {
		t.Errorf("sales created on the first target: %d, want 2", sa)
	}
	if sb, _ := b.Counts(); sb != 0 {
		t.Errorf("sales created on the second target: %d, want 0", sb)
	}
	if a.Orders() != 30 || b.Orders() != 30 {
		t.Errorf("orders per target: %d and %d, want 30 and 30", a.Orders(), b.Orders())
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
	f := &fakeshop.Shop{Strategies: fakeStrategies, Answer: fakeshop.SoldAfter(10), Final: shopapi.SaleView{Sold: 10}, Token: "s3cret"}
	target := fakeshop.Start(t, f)
	code, stdout, stderr := runTool(t, "--targets", target, "--strategy", "fake-safe", "--stock", "10", "--buyers", "20")
	if code != load.ExitFail || !strings.Contains(stdout, load.VerdictFailed) || !strings.Contains(stdout, "--admin-token") {
		t.Fatalf("without the token: exit %d, want 1 with FAILED and a hint\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if f.Orders() != 0 {
		t.Errorf("%d orders sent for a sale that was never created", f.Orders())
	}
	t.Setenv("SECKILL_ADMIN_TOKEN", "s3cret")
	if code, stdout, stderr := runTool(t, "--targets", target, "--strategy", "fake-safe", "--stock", "10", "--buyers", "20"); code != load.ExitOK {
		t.Fatalf("with the token from the environment: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
