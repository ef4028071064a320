package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// Model notes, printed with every latency figure: a closed-model p99 and an
// open-model p99 are different measurements and must not be compared as if
// they were the same.
const (
	closedNote = "closed model: latency excludes queueing (coordinated omission not corrected)"
	openNote   = "open model: latency from the intended send time (coordinated omission corrected)"
)

func modelNote(model string) string {
	if model == "open" {
		return openNote
	}
	return closedNote
}

// printHeader says what is about to run.
func printHeader(w io.Writer, cfg runConfig, chosen []strategyInfo) {
	names := make([]string, len(chosen))
	for i, st := range chosen {
		names[i] = st.Name
	}
	load := fmt.Sprintf("closed model, %d workers", cfg.concurrency)
	if cfg.rate > 0 {
		load = fmt.Sprintf("open model, %g req/s (at most %d in flight)", cfg.rate, cfg.maxInFlight)
	}
	if cfg.duration > 0 {
		load += fmt.Sprintf(", for at most %v", cfg.duration)
	}
	fmt.Fprintf(w, "loadtest: %d buyers (one attempt each) for %d units per strategy, %s, over %d target(s): %s\n",
		cfg.buyers, cfg.stock, load, len(cfg.targets), strings.Join(cfg.targets, ", "))
	fmt.Fprintf(w, "sale: work_ms=%d ttl_ms=%d fencing=%t per_user_limit=%d; strategies: %s\n\n",
		cfg.workMS, cfg.ttlMS, cfg.fencing, cfg.perUserLimit, strings.Join(names, ", "))
}

// printResult prints one strategy's table.
func printResult(w io.Writer, cfg runConfig, r Result) {
	safety := "unsafe by design"
	if r.Safe {
		safety = "safe"
	}
	fmt.Fprintf(w, "== %s (%s)", r.Strategy, safety)
	if r.view.ID != 0 {
		fmt.Fprintf(w, ", sale %d", r.view.ID)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	if r.Failure != "" {
		fmt.Fprintf(tw, "  failure\t%s\n", r.Failure)
	}
	fmt.Fprintf(tw, "  requests\t%d in %.3f s: %.1f req/s, %.1f orders/s\n", r.Requests, r.DurationS, r.RequestsPerS, r.OrdersPerS)
	fmt.Fprintf(tw, "  orders (201)\t%d\n", r.Orders)
	fmt.Fprintf(tw, "  sold_out (409)\t%d\n", r.SoldOut)
	var refusals, hard []string
	for _, k := range r.errorKinds() {
		s := fmt.Sprintf("%s %d", k, r.Errors[k])
		if isHardError(k) {
			hard = append(hard, s)
		} else {
			refusals = append(refusals, s)
		}
	}
	fmt.Fprintf(tw, "  refusals (409/503)\t%s\n", listOrNone(refusals))
	errLine := listOrNone(hard)
	if r.Requests > 0 {
		errLine += fmt.Sprintf("  (%.2f%% of requests; limit %.2f%%)", 100*float64(r.HardErrors)/float64(r.Requests), 100*cfg.maxErrorRate)
	}
	fmt.Fprintf(tw, "  errors (5xx, transport)\t%s\n", errLine)
	l := r.LatencyMS
	fmt.Fprintf(tw, "  latency ms\tp50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n", l.P50, l.P95, l.P99, l.Max)
	fmt.Fprintf(tw, "  \t%s\n", modelNote(r.Model))
	if r.hasView() {
		v := r.view
		fmt.Fprintf(tw, "  database\tsold %d  stock %d  oversold %d  lost updates %d  duplicates %d  violations %d  fenced writes %d\n",
			v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Duplicates, v.Violations, v.FencedWrites)
	}
	fmt.Fprintf(tw, "  verdict\t%s\n", explain(r))
	fmt.Fprintln(tw)
}

// explain is the verdict with its reason, for people.
func explain(r Result) string {
	switch r.Verdict {
	case verdictExpected:
		return verdictExpected + ": the strategy is not safe and broke the sale, as expected (not a failure)"
	case verdictOversold:
		return verdictOversold + ": a strategy meant to be safe sold more than the stock"
	case verdictViolations:
		return verdictViolations + ": a strategy meant to be safe lost updates, overlapped critical sections or duplicated a buyer"
	case verdictErrors:
		return verdictErrors + ": hard errors above --max-error-rate"
	case verdictOK:
		if !r.Safe {
			return verdictOK + " (unsafe strategy; it happened to hold this time)"
		}
	}
	return r.Verdict
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// printComparison prints one row per strategy.
func printComparison(w io.Writer, results []Result) {
	fmt.Fprintln(w, "== comparison")
	// Numbers align right; the names are padded by hand to stay left-aligned.
	width := len("strategy")
	for _, r := range results {
		width = max(width, len(r.Strategy))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tsafe\treq/s\torders/s\tp50 ms\tp99 ms\tsold\toversold\tlost updates\tviolations\thard errors\tverdict\t\n", width, "strategy")
	for _, r := range results {
		safe := "no"
		if r.Safe {
			safe = "yes"
		}
		v := r.view
		fmt.Fprintf(tw, "%-*s\t%s\t%.0f\t%.1f\t%.2f\t%.2f\t%d\t%d\t%d\t%d\t%d\t%s\t\n", width, r.Strategy, safe, r.RequestsPerS, r.OrdersPerS,
			r.LatencyMS.P50, r.LatencyMS.P99, v.Sold, v.Oversold, v.LostUpdates, v.Violations, r.HardErrors, r.Verdict)
	}
	tw.Flush()
	if len(results) > 0 {
		fmt.Fprintf(w, "(%s)\n", modelNote(results[0].Model))
	}
}

// writeJSON writes rep to path, indented, ending with a newline.
func writeJSON(path string, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
