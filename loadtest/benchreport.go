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
)

// benchReport is `loadtest bench-report` (scripts/bench.sh, make bench): it
// reads two `loadtest run --json` files made against the same replicas,
//
//	--calib  an UNCONTENDED run (concurrency 1, work-ms 0): what one lock
//	         round trip costs when nobody else wants the lock;
//	--run    the contended run being judged,
//
// fetches each sale's server-side figures (GET /api/sales/{id}/live, merged
// across replicas) into results[].server, writes the contended report back
// as --out-json, and writes a Markdown table (--out-md) with each lock
// strategy's throughput as a fraction of its physical limit
//
//	limit = 1 / (mean critical section + lock round trip)
//
// A lock serialises the sale: at most one critical section runs at a time,
// and between two of them the lock must be released and granted again, so
// no scheduling can beat the limit; the ratio says how much of it the
// strategy's waiting (polling, backoff, watches, lease expiry) wastes.
func benchReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest bench-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	calibPath := fs.String("calib", "", "JSON of the uncontended run (required)")
	runPath := fs.String("run", "", "JSON of the contended run (required)")
	factsPath := fs.String("facts", "", "optional Markdown file of machine facts, copied into the report")
	outJSON := fs.String("out-json", "", "write the contended report with results[].server here (default: --run)")
	outMD := fs.String("out-md", "", "Markdown output (required)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *calibPath == "" || *runPath == "" || *outMD == "" {
		fmt.Fprintln(stderr, "loadtest bench-report: --calib, --run and --out-md are required")
		return exitUsage
	}
	if *outJSON == "" {
		*outJSON = *runPath
	}
	c := newClient(4, setupTimeout, "")
	defer c.close()
	var reps [2]*Report
	for i, p := range []string{*calibPath, *runPath} {
		rep, err := readReport(p)
		if err == nil {
			err = fillServer(ctx, c, rep)
		}
		if err != nil {
			fmt.Fprintf(stderr, "loadtest bench-report: %s: %v\n", p, err)
			return exitFail
		}
		reps[i] = rep
	}
	var facts []byte
	if *factsPath != "" {
		var err error
		if facts, err = os.ReadFile(*factsPath); err != nil {
			fmt.Fprintf(stderr, "loadtest bench-report: --facts: %v\n", err)
			return exitFail
		}
	}
	md := benchMarkdown(reps[0], reps[1], string(facts))
	// The calibration file gets its server figures too: the round trips
	// the ratios were computed from stay on record.
	if err := writeJSON(*calibPath, reps[0]); err != nil {
		fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
		return exitFail
	}
	if err := writeJSON(*outJSON, reps[1]); err != nil {
		fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
		return exitFail
	}
	if err := os.WriteFile(*outMD, []byte(md), 0o644); err != nil {
		fmt.Fprintf(stderr, "loadtest bench-report: %v\n", err)
		return exitFail
	}
	fmt.Fprint(stdout, md)
	return exitOK
}

func readReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, err
	}
	for i := range rep.Results {
		_ = json.Unmarshal(rep.Results[i].Sale, &rep.Results[i].view) // null leaves the zero view
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
func fillServer(ctx context.Context, c *client, rep *Report) error {
	if len(rep.Config.Targets) == 0 {
		return errors.New("no targets in the report")
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.view.ID == 0 {
			continue
		}
		url := rep.Config.Targets[0] + "/api/sales/" + strconv.FormatUint(r.view.ID, 10) + "/live"
		deadline := time.Now().Add(liveWait)
		for {
			var l serverLive
			raw, err := c.callJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l)
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

func live(r Result) (serverLive, bool) {
	var l serverLive
	return l, len(r.Server) > 0 && json.Unmarshal(r.Server, &l) == nil
}

// limitRow is one strategy's throughput against its physical limit.
type limitRow struct {
	lockFree                    bool
	csMean, acquireP50, rtt     float64 // ms
	sectionsPerS, limit, ratio  float64
	haveCalib, haveServer, okay bool
}

// limitOf computes the ratio. Definitions (repeated in the Markdown):
//   - lock round trip (rtt) = uncontended server latency p50 - uncontended
//     critical-section p50, from the calibration run at concurrency 1: all
//     Place does outside the critical section when nobody competes, i.e.
//     acquire + release round trips (+ microseconds of bookkeeping). Medians,
//     not means: each replica's first order also builds the strategy's
//     connections (ZooKeeper session, RedLock clients), a one-off outlier
//     that is no part of a round trip.
//   - mean critical section = the contended run's server-side mean, merged
//     across replicas (lock held to just before unlock; sold-out answers
//     hold the lock too and are counted, as they occupy it).
//   - sections/s = lock grants / run duration, grants = server requests
//     minus the ones that never held the lock (lock_timeout, canceled).
//   - ratio = sections/s / limit, limit = 1000 / (mean CS ms + rtt ms).
//
// A strategy whose uncontended run recorded no lock grant takes no lock
// (lock-free CAS/conditional writes, Redis Lua stock) and none: n/a.
func limitOf(calib, run Result) limitRow {
	var row limitRow
	cl, okc := live(calib)
	rl, okr := live(run)
	row.haveCalib, row.haveServer = okc, okr
	if !okc || !okr {
		return row
	}
	// "none" records grants of its no-op lease; it still excludes nothing.
	if run.Strategy == "none" || (cl.LockWait.Max == 0 && cl.Critical.Max == 0) {
		row.lockFree = true
		return row
	}
	row.csMean, row.acquireP50 = rl.Critical.Mean, cl.LockWait.P50
	row.rtt = max(cl.Latency.P50-cl.Critical.P50, 0)
	grants := rl.Requests - rl.Outcomes["lock_timeout"] - rl.Outcomes["canceled"]
	if run.DurationS <= 0 || row.csMean+row.rtt <= 0 {
		return row
	}
	row.sectionsPerS = float64(grants) / run.DurationS
	row.limit = 1000 / (row.csMean + row.rtt)
	row.ratio = row.sectionsPerS / row.limit
	row.okay = true
	return row
}

// benchMarkdown renders the report.
func benchMarkdown(calib, run *Report, facts string) string {
	var b strings.Builder
	cfg := run.Config
	fmt.Fprintf(&b, "# make bench: %s\n\n", run.StartedAt.Format(time.RFC3339))
	if facts != "" {
		fmt.Fprintf(&b, "## Machine\n\n%s\n", strings.TrimRight(facts, "\n")+"\n")
	}
	fmt.Fprintf(&b, "## Run\n\n`loadtest run --strategy %s --stock %d --buyers %d --concurrency %d --work-ms %d --ttl-ms %d` against %d replicas (%s), %s model. "+
		"Calibration (uncontended): stock %d, buyers %d, concurrency %d, work-ms %d.\n\n",
		cfg.Strategy, cfg.Stock, cfg.Buyers, cfg.Concurrency, cfg.WorkMS, cfg.TTLMS, len(cfg.Targets), strings.Join(cfg.Targets, ", "),
		cfg.Model, calib.Config.Stock, calib.Config.Buyers, calib.Config.Concurrency, calib.Config.WorkMS)
	byName := map[string]Result{}
	for _, r := range calib.Results {
		byName[r.Strategy] = r
	}
	b.WriteString("| strategy | safe | verdict | req/s | orders/s | client p50 ms | client p99 ms | sold | oversold | lost upd. | violations | hard err. | CS mean ms | acquire p50 ms (unc.) | lock RTT ms | sections/s | limit/s | ratio |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range run.Results {
		safe := "no"
		if r.Safe {
			safe = "yes"
		}
		v := r.view
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.1f | %.2f | %.2f | %d | %d | %d | %d | %d | ", r.Strategy, safe, r.Verdict,
			r.RequestsPerS, r.OrdersPerS, r.LatencyMS.P50, r.LatencyMS.P99, v.Sold, v.Oversold, v.LostUpdates, v.Violations, r.HardErrors)
		c, ok := byName[r.Strategy]
		row := limitOf(c, r)
		switch {
		case !ok || !row.haveCalib || !row.haveServer:
			b.WriteString("? | ? | ? | ? | ? | n/a (no server figures) |\n")
		case row.lockFree:
			b.WriteString("– | – | – | – | – | n/a (no lock) |\n")
		case !row.okay:
			b.WriteString("? | ? | ? | ? | ? | n/a |\n")
		default:
			fmt.Fprintf(&b, "%.2f | %.2f | %.2f | %.0f | %.0f | %.2f |\n", row.csMean, row.acquireP50, row.rtt, row.sectionsPerS, row.limit, row.ratio)
		}
	}
	b.WriteString(`
Definitions (loadtest/benchreport.go, limitOf):

- **CS mean**: mean critical-section time of the contended run, server side,
  merged across the replicas (lock held → just before unlock). Sold-out
  answers hold the lock too (they read the stock under it), so they count.
- **lock RTT**: from the uncontended calibration run (concurrency 1, work-ms
  0): server latency p50 − critical-section p50, i.e. everything an order
  does outside its critical section when nobody competes: the acquire and
  the release round trips. Medians, because each replica's first order also
  opens the strategy's connections. **acquire p50** is the acquire alone.
- **sections/s**: lock grants per second of the contended run (server
  requests minus lock_timeout and canceled ones, over the client's
  first-send-to-last-answer duration). Not orders/s: with 100 units for 2000
  buyers, most grants end in a sold-out answer, and they occupy the lock
  just the same.
- **limit/s** = 1000 / (CS mean + lock RTT): one section at a time, and a
  release plus a grant between two of them. **ratio** = sections/s ÷ limit.
  A ratio above 1 means the lock let sections overlap or hand-offs cost less
  than an uncontended round trip (pipelined, or not exclusive at all).
- Lock-free strategies take no lock: **n/a (no lock)**.
- Client latency is closed-model (coordinated omission not corrected).
`)
	return b.String()
}
