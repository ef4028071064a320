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

// limitOf: rtt = uncontended latency p50 - critical p50; limit from the
// contended critical mean; grants exclude lock timeouts; a strategy with no
// grant when uncontended (or "none") is n/a.
func TestLimitOf(t *testing.T) {
	calib := Result{Strategy: "redis", Server: liveJSON(50, 1.5, 0.5, 0.5, 0.4, 2)}
	run := Result{Strategy: "redis", DurationS: 2, Server: liveJSON(1100, 0, 0, 1, 0, 0)}
	row := limitOf(calib, run)
	if !row.okay || row.lockFree {
		t.Fatalf("row %+v", row)
	}
	// rtt 1 ms, CS mean 1 ms: limit 500/s; 1000 grants in 2 s: 500/s.
	if math.Abs(row.rtt-1) > 1e-9 || math.Abs(row.limit-500) > 1e-9 || math.Abs(row.sectionsPerS-500) > 1e-9 || math.Abs(row.ratio-1) > 1e-9 {
		t.Errorf("row %+v, want rtt 1, limit 500, sections 500, ratio 1", row)
	}
	free := limitOf(Result{Server: liveJSON(50, 1, 0, 0, 0, 0)}, run)
	if !free.lockFree {
		t.Errorf("no grant when uncontended: want n/a, got %+v", free)
	}
	if none := limitOf(calib, Result{Strategy: "none", DurationS: 1, Server: run.Server}); !none.lockFree {
		t.Errorf("none: want n/a, got %+v", none)
	}
	if missing := limitOf(Result{}, run); missing.okay || missing.haveCalib {
		t.Errorf("no server figures: %+v", missing)
	}
}

// bench-report end to end against a fake /live: it fills results[].server,
// writes the Markdown with a ratio for the lock and n/a for the lock-free one.
func TestBenchReportCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/sales/1/live": // calibration, lock
			_, _ = w.Write(liveJSON(5, 1.5, 0.5, 0.5, 0.4, 2))
		case "/api/sales/2/live": // calibration, lock-free
			_, _ = w.Write(liveJSON(5, 1, 0, 0, 0, 0))
		case "/api/sales/3/live", "/api/sales/4/live":
			_, _ = w.Write(liveJSON(1100, 0, 0, 1, 0, 0))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	write := func(name string, ids [2]int) string {
		rep := newReport(runConfig{targets: []string{srv.URL}, strategy: "all", stock: 1, buyers: 5, concurrency: 1}, time.Unix(0, 0))
		for i, st := range []string{"redis", "db-optimistic"} {
			r := newResult(strategyInfo{Name: st, Safe: true}, "closed")
			r.Requests, r.DurationS, r.Verdict = 5, 2, verdictOK
			r.Sale = json.RawMessage(`{"id":` + string(rune('0'+ids[i])) + `}`)
			rep.Results = append(rep.Results, r)
		}
		p := filepath.Join(dir, name)
		if err := writeJSON(p, rep); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calib, run := write("calib.json", [2]int{1, 2}), write("run.json", [2]int{3, 4})
	md := filepath.Join(dir, "out.md")
	var out, errb bytes.Buffer
	if code := benchReport(context.Background(), []string{"--calib", calib, "--run", run, "--out-md", md}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if !strings.Contains(text, "| 1.00 | 0.40 | 1.00 | 500 | 500 | 1.00 |") || !strings.Contains(text, "n/a (no lock)") {
		t.Errorf("markdown:\n%s", text)
	}
	rep, err := readReport(run)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := live(rep.Results[0]); !ok || l.Requests != 1100 {
		t.Errorf("results[0].server not filled: %s", rep.Results[0].Server)
	}
	if code := benchReport(context.Background(), []string{"--run", run}, &out, &errb); code != exitUsage {
		t.Errorf("missing flags: exit %d, want %d", code, exitUsage)
	}
}

// rate counts 2xx answers of one URL and fails when none came.
func TestRateCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := rate(context.Background(), []string{"--url", srv.URL, "--duration", "200ms", "--concurrency", "4"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), " ok, 0 errors") || strings.HasPrefix(out.String(), "loadtest rate: 0 ok") {
		t.Errorf("output %q", out.String())
	}
	if code := rate(context.Background(), []string{"--duration", "1s"}, &out, &errb); code != exitUsage {
		t.Errorf("no --url: exit %d, want %d", code, exitUsage)
	}
}
