package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// benchReport is `loadtest bench-report` (scripts/bench.sh, make bench): it
// reads the `loadtest run --json` file of the contended run being judged
// (--run; --calib, an older uncontended run, is optional and only kept on
// record with its server figures), fetches each sale's server-side figures
// (GET /api/sales/{id}/live, merged across replicas) into results[].server,
// writes the report back as --out-json, and writes a Markdown table
// (--out-md) with each lock strategy's throughput as a fraction of its
// physical limit
//
//	limit = 1 / (mean hold + mean hand-over to a buyer already waiting)
//
// both from the sale's recorded critical sections (the sale view's
// lock_cycle, sectionlog.Cycle). A lock runs one section at a time and hands
// itself over between two, so no scheduling beats the limit: the ratio is
// 1 when the lock never sat free while a buyer waited, less when it idled.
func benchReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest bench-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	calibPath := fs.String("calib", "", "JSON of an uncontended run, kept on record with its server figures (optional)")
	runPath := fs.String("run", "", "JSON of the contended run (required)")
	factsPath := fs.String("facts", "", "optional Markdown file of machine facts, copied into the report")
	outJSON := fs.String("out-json", "", "write the contended report with results[].server here (default: --run)")
	outMD := fs.String("out-md", "", "Markdown output (required)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return load.ExitOK
		}
		return load.ExitUsage
	}
	if *runPath == "" || *outMD == "" {
		fmt.Fprintln(stderr, "loadtest bench-report: --run and --out-md are required")
		return load.ExitUsage
	}
	if *outJSON == "" {
		*outJSON = *runPath
	}
	c := shopapi.NewClient(4, load.SetupTimeout, "")
	defer c.Close()
	var reps [2]*load.Report
	for i, p := range []string{*calibPath, *runPath} {
		if p == "" {
			continue
		}
		rep, err := readReport(p)
		if err == nil {
			err = fillServer(ctx, c, rep)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadtest bench-report: %s: %v\n", p, err)
			return load.ExitFail
		}
		reps[i] = rep
	}
	var facts []byte
	if *factsPath != "" {
		var err error
		if facts, err = os.ReadFile(*factsPath); err != nil {
			fmt.Fprintf(stderr, "loadtest bench-report: --facts: %v\n", err)
			return load.ExitFail
		}
	}
	md := benchMarkdown(reps[1], string(facts))
	if reps[0] != nil { // on record with its server figures too
		if err := load.WriteJSON(*calibPath, reps[0]); err != nil {
			fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
			return load.ExitFail
		}
	}
	if err := load.WriteJSON(*outJSON, reps[1]); err != nil {
		fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
		return load.ExitFail
	}
	if err := os.WriteFile(*outMD, []byte(md), 0o644); err != nil {
		fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
		return load.ExitFail
	}
	fmt.Fprint(stdout, md)
	return load.ExitOK
}

func readReport(path string) (*load.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep load.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	for i := range rep.Results {
		_ = json.Unmarshal(rep.Results[i].Sale, &rep.Results[i].View) // null leaves the zero view
	}
	return &rep, nil
}

// serverLive is the part of metrics.SaleLive the report reads.
type serverLive struct {
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Latency  livePct          `json:"latency_ms"`
	LockWait livePct          `json:"lock_wait_ms"`
	Critical livePct          `json:"critical_section_ms"`
}

type livePct struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// liveWait bounds the wait for every replica's figures: they publish once a
// second, so the last requests of a run show up to ~1 s late.
const liveWait = 5 * time.Second

// fillServer reads each result's /live into Server, waiting until it has
// counted as many requests as the client sent (or liveWait passed).
func fillServer(ctx context.Context, c *shopapi.Client, rep *load.Report) error {
	if len(rep.Config.Targets) == 0 {
		return errors.New("no targets in the report")
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.View.ID == 0 {
			continue
		}
		url := rep.Config.Targets[0] + "/api/sales/" + strconv.FormatUint(r.View.ID, 10) + "/live"
		deadline := time.Now().Add(liveWait)
		for {
			var l serverLive
			raw, err := c.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l)
			if err != nil {
				return err
			}
			r.Server = raw
			if l.Requests >= r.Requests || time.Now().After(deadline) {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	return nil
}

func live(r load.Result) (serverLive, bool) {
	var l serverLive
	return l, len(r.Server) > 0 && json.Unmarshal(r.Server, &l) == nil
}

// lockCycle is the sale view's lock_cycle (sectionlog.Cycle): its recorded
// critical sections' mean hold and mean hand-over to a waiting buyer.
type lockCycle struct {
	Sections   int64   `json:"sections"`
	HoldMS     float64 `json:"hold_ms"`
	Handovers  int64   `json:"handovers"`
	HandoverMS float64 `json:"handover_ms"`
	SpanMS     float64 `json:"span_ms"`
}

// limitRow is one strategy's throughput against its physical limit.
type limitRow struct {
	lockFree, okay                                 bool
	holdMS, handoverMS, sectionsPerS, limit, ratio float64
}

// limitOf computes the ratio from the sale's recorded sections, as
// sectionlog.Cycle does. Definitions (repeated in the Markdown):
//   - hold = mean time from Lock returned to just before Unlock;
//   - hand-over = mean time from one section's exit to the next entry,
//     over the releases when a buyer was already waiting (a gap with nobody
//     waiting is idle, no cost of the lock);
//   - limit = 1000 / (hold + hand-over) per second;
//   - sections/s = sections / (first entry → last exit + one hand-over):
//     n sections at the limit take n holds and n hand-overs;
//   - ratio = sections/s ÷ limit, at most 1 for an exclusive lock up to
//     noise (an idle gap shorter than a hand-over).
//
// A sale with no recorded section took no lock (lock-free CAS/conditional
// writes, Redis Lua stock), and "none" excludes nothing: n/a.
func limitOf(run load.Result) limitRow {
	var row limitRow
	var v struct {
		LockCycle lockCycle `json:"lock_cycle"`
	}
	if !run.HasView() || json.Unmarshal(run.Sale, &v) != nil {
		return row
	}
	c := v.LockCycle
	if run.Strategy == "none" || c.Sections == 0 {
		row.lockFree = true
		return row
	}
	if c.HoldMS+c.HandoverMS <= 0 {
		return row
	}
	row.holdMS, row.handoverMS = c.HoldMS, c.HandoverMS
	row.limit = 1000 / (c.HoldMS + c.HandoverMS)
	if span := c.SpanMS + c.HandoverMS; span > 0 {
		row.sectionsPerS = float64(c.Sections) * 1000 / span
	}
	row.ratio = row.sectionsPerS / row.limit
	row.okay = true
	return row
}

// benchMarkdown renders the report.
func benchMarkdown(run *load.Report, facts string) string {
	var b strings.Builder
	cfg := run.Config
	fmt.Fprintf(&b, "# make bench: %s\n\n", run.StartedAt.Format(time.RFC3339))
	if facts != "" {
		fmt.Fprintf(&b, "## Machine\n\n%s\n", strings.TrimRight(facts, "\n")+"\n")
	}
	fmt.Fprintf(&b, "## Run\n\n`loadtest run --strategy %s --stock %d --buyers %d --concurrency %d --work-ms %d --ttl-ms %d` against %d replicas (%s), %s model.\n\n",
		cfg.Strategy, cfg.Stock, cfg.Buyers, cfg.Concurrency, cfg.WorkMS, cfg.TTLMS, len(cfg.Targets), strings.Join(cfg.Targets, ", "), cfg.Model)
	b.WriteString("| strategy | safe | verdict | req/s | orders/s | client p50 ms | client p99 ms | sold | oversold | lost upd. | violations | hard err. | hold ms | hand-over ms | sections/s | limit/s | ratio |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range run.Results {
		safe := "no"
		if r.Safe {
			safe = "yes"
		}
		v := r.View
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.1f | %.2f | %.2f | %d | %d | %d | %d | %d | ", r.Strategy, safe, r.Verdict,
			r.RequestsPerS, r.OrdersPerS, r.LatencyMS.P50, r.LatencyMS.P99, v.Sold, v.Oversold, v.LostUpdates, v.Violations, r.HardErrors)
		row := limitOf(r)
		switch {
		case row.lockFree:
			b.WriteString("– | – | – | – | n/a (no lock) |\n")
		case !row.okay:
			b.WriteString("? | ? | ? | ? | n/a (no sections) |\n")
		default:
			fmt.Fprintf(&b, "%.3f | %.3f | %.0f | %.0f | %.2f |\n", row.holdMS, row.handoverMS, row.sectionsPerS, row.limit, row.ratio)
		}
	}
	b.WriteString(`
Definitions (loadtest/benchreport.go, limitOf; internal/sectionlog, Cycle),
all from the sale's critical sections as the replicas recorded them:

- **hold**: mean time a holder had the lock (Lock returned → just before
  Unlock), merged across the replicas. Sold-out answers hold it too (they
  read the stock under it), so they count.
- **hand-over**: mean time from one section's exit to the next section's
  entry, over the releases when a buyer was already waiting: the release
  and the grant the lock itself costs. A gap with nobody waiting is idle
  time, not a cost of the lock, and is left out.
- **limit/s** = 1000 / (hold + hand-over): one section at a time and one
  hand-over between two; no scheduling can beat it.
- **sections/s** = sections / (first entry → last exit + one hand-over):
  n sections at the limit take n holds and n hand-overs. Not orders/s: most
  sections of a herd end in a sold-out answer and occupy the lock the same.
- **ratio** = sections/s ÷ limit/s: 1 when the lock was never free while a
  buyer waited (the lock was the bottleneck), less when it idled with
  nobody waiting (the load, or the work outside the lock, was). For an
  exclusive lock it can pass 1 only by noise (an idle gap shorter than a
  hand-over); sections that overlap show as violations.
- Lock-free strategies record no section: **n/a (no lock)**.
- Client latency is closed-model (coordinated omission not corrected).
`)
	return b.String()
}
