package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

func liveJSON(requests int64, latP50, csP50, csMean, lwP50, lwMax float64) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"requests": requests, "outcomes": map[string]int64{"ok": 10, "lock_timeout": 100},
		"latency_ms":          map[string]float64{"p50": latP50},
		"lock_wait_ms":        map[string]float64{"p50": lwP50, "max": lwMax},
		"critical_section_ms": map[string]float64{"p50": csP50, "max": csP50, "mean": csMean},
	})
	return b
}

func saleJSON(id int, sections int64, holdMS, handoverMS, spanMS float64) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"id": id, "lock_cycle": map[string]any{
		"sections": sections, "hold_ms": holdMS, "handovers": max(sections-1, 0), "handover_ms": handoverMS, "span_ms": spanMS}})
	return b
}

// limitOf reads the sale's lock_cycle: limit 1 / (hold + hand-over),
// sections over their span plus one hand-over; no sections (or "none") is
// n/a, a sale view never read is unknown.
func TestLimitOf(t *testing.T) {
	// 1000 sections of 1.5 ms with 0.5 ms hand-overs: limit 500/s. Over
	// 1999.5 + 0.5 ms the lock never idled (ratio 1); over 3999.5 it did.
	for span, want := range map[float64]float64{1999.5: 1, 3999.5: 0.5} {
		row := limitOf(load.Result{Strategy: "redis", Sale: saleJSON(1, 1000, 1.5, 0.5, span)})
		if !row.okay || row.lockFree || math.Abs(row.limit-500) > 1e-9 || math.Abs(row.ratio-want) > 1e-9 {
			t.Errorf("span %v: row %+v, want limit 500, ratio %v", span, row, want)
		}
	}
	if free := limitOf(load.Result{Strategy: "db-optimistic", Sale: saleJSON(2, 0, 0, 0, 0)}); !free.lockFree {
		t.Errorf("no sections: want n/a, got %+v", free)
	}
	if none := limitOf(load.Result{Strategy: "none", Sale: saleJSON(3, 10, 1, 0, 10)}); !none.lockFree {
		t.Errorf("none: want n/a, got %+v", none)
	}
	if missing := limitOf(load.Result{Strategy: "redis"}); missing.okay || missing.lockFree {
		t.Errorf("no sale view: %+v", missing)
	}
}

// bench-report end to end against a fake /live: it fills results[].server,
// writes the Markdown with a ratio for the lock and n/a for the lock-free one.
func TestBenchReportCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/sales/1/live", "/api/sales/2/live": // the calibration on record
			_, _ = w.Write(liveJSON(5, 1.5, 0.5, 0.5, 0.4, 2))
		case "/api/sales/3/live", "/api/sales/4/live":
			_, _ = w.Write(liveJSON(1100, 0, 0, 1, 0, 0))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name string, ids [2]int) string {
		rep := load.NewReport(load.RunConfig{Targets: []string{srv.URL}, Strategy: "all", Stock: 1, Buyers: 5, Concurrency: 1}, time.Unix(0, 0))
		for i, st := range []string{"redis", "db-optimistic"} {
			r := load.NewResult(shopapi.StrategyInfo{Name: st, Safe: true}, "closed")
			r.Requests, r.DurationS, r.Verdict = 5, 2, load.VerdictOK
			r.Sale = saleJSON(ids[i], int64(1-i)*1000, 1.5, 0.5, 1999.5) // redis ran sections, db-optimistic none
			rep.Results = append(rep.Results, r)
		}
		p := filepath.Join(dir, name)
		if err := load.WriteJSON(p, rep); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calib, run := write("calib.json", [2]int{1, 2}), write("run.json", [2]int{3, 4})
	md := filepath.Join(dir, "out.md")
	var out, errb bytes.Buffer
	if code := benchReport(context.Background(), []string{"--calib", calib, "--run", run, "--out-md", md}, &out, &errb); code != load.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "| 1.500 | 0.500 | 500 | 500 | 1.00 |") || !strings.Contains(text, "n/a (no lock)") {
		t.Errorf("markdown:\n%s", text)
	}
	rep, err := readReport(run)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := live(rep.Results[0]); !ok || l.Requests != 1100 {
		t.Errorf("results[0].server not filled: %s", rep.Results[0].Server)
	}
	if l, ok := live(readOrFail(t, calib).Results[0]); !ok || l.Requests != 5 {
		t.Errorf("the calibration on record got no server figures")
	}
	if code := benchReport(context.Background(), []string{"--run", run, "--out-md", md}, &out, &errb); code != load.ExitOK {
		t.Errorf("without --calib: exit %d: %s", code, errb.String())
	}
	if code := benchReport(context.Background(), []string{"--run", run}, &out, &errb); code != load.ExitUsage {
		t.Errorf("missing flags: exit %d, want %d", code, load.ExitUsage)
	}
}

func readOrFail(t *testing.T, path string) *load.Report {
	t.Helper()
	rep, err := readReport(path)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rate counts 2xx answers of one URL and fails when none came.
func TestRateCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := rate(context.Background(), []string{"--url", srv.URL, "--duration", "200ms", "--concurrency", "4"}, &out, &errb); code != load.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), " ok, 0 errors") || strings.HasPrefix(out.String(), "loadtest rate: 0 ok") {
		t.Errorf("output %q", out.String())
	}
	if code := rate(context.Background(), []string{"--duration", "1s"}, &out, &errb); code != load.ExitUsage {
		t.Errorf("no --url: exit %d, want %d", code, load.ExitUsage)
	}
}
