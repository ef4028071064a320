package load

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Model notes, printed with every latency figure: a closed-model p99 and an
// open-model p99 are different measurements and must not be compared as if
// they were the same.
const (
	ClosedNote = "closed model: latency excludes queueing (coordinated omission not corrected)"
	openNote   = "open model: latency from the intended send time (coordinated omission corrected)"
	herdNote   = "herd: every buyer due at the opening; latency from the opening (coordinated omission corrected)"
)

func modelNote(model string) string {
	switch model {
	case "open":
		return openNote
	case "herd":
		return herdNote
	}
	return ClosedNote
}

// PrintHeader says what is about to run.
func PrintHeader(w io.Writer, cfg RunConfig, chosen []shopapi.StrategyInfo) {
	names := make([]string, len(chosen))
	for i, st := range chosen {
		names[i] = st.Name
	}
	load := fmt.Sprintf("closed model, %d workers", cfg.Concurrency)
	switch {
	case cfg.herd():
		load = fmt.Sprintf("herd at the opening, %v after the sale is made (at most %d in flight)", cfg.Guards.OpensIn, cfg.MaxInFlight)
	case cfg.Rate > 0:
		load = fmt.Sprintf("open model, %g req/s (at most %d in flight)", cfg.Rate, cfg.MaxInFlight)
	}
	if cfg.Guards.OpensIn > 0 && !cfg.herd() {
		load += fmt.Sprintf(", from the opening %v after the sale is made", cfg.Guards.OpensIn)
	}
	if cfg.Duration > 0 {
		load += fmt.Sprintf(", for at most %v", cfg.Duration)
	}
	fmt.Fprintf(w, "loadtest: %d buyers (one attempt each) for %d units per strategy, %s, over %d target(s): %s\n",
		cfg.Buyers, cfg.Stock, load, len(cfg.Targets), strings.Join(cfg.Targets, ", "))
	g := cfg.Guards
	fmt.Fprintf(w, "sale: work_ms=%d ttl_ms=%d fencing=%t per_user_limit=%d sold_out_cache=%t rate_limit_user=%d rate_limit_ip=%d ticket_required=%t order_mode=%s pay_within_ms=%d; strategies: %s\n\n",
		cfg.WorkMS, cfg.TtlMS, cfg.Fencing, cfg.PerUserLimit, g.SoldOutCache, g.RateLimitUser, g.RateLimitIP, g.TicketRequired,
		cfg.OrderMode, cfg.PayWithinMS, strings.Join(names, ", "))
}

// PrintResult prints one strategy's table.
func PrintResult(w io.Writer, cfg RunConfig, r Result) {
	safety := "unsafe by design"
	if r.Safe {
		safety = "safe"
	}
	fmt.Fprintf(w, "== %s (%s)", r.Strategy, safety)
	if r.View.ID != 0 {
		fmt.Fprintf(w, ", sale %d", r.View.ID)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	if r.Failure != "" {
		fmt.Fprintf(tw, "  failure\t%s\n", r.Failure)
	}
	printAnswers(tw, cfg, r)
	if h := r.Herd; h != nil {
		printHerd(tw, h)
	}
	if q := r.Queue; q != nil {
		printQueue(tw, r, q)
	}
	if r.HasView() {
		printDatabase(tw, r)
	}
	fmt.Fprintf(tw, "  verdict\t%s\n", explain(r))
	fmt.Fprintln(tw)
}

// printAnswers prints what the buyers were answered: the counts by kind,
// the refusals and hard errors, the latency, the layers and the retries.
func printAnswers(tw io.Writer, cfg RunConfig, r Result) {
	fmt.Fprintf(tw, "  requests\t%d in %.3f s: %.1f req/s, %.1f orders/s\n", r.Requests, r.DurationS, r.RequestsPerS, r.OrdersPerS)
	fmt.Fprintf(tw, "  orders (201)\t%d\n", r.Orders)
	if r.Accepted > 0 || r.Queue != nil {
		fmt.Fprintf(tw, "  accepted (202)\t%d\n", r.Accepted)
	}
	fmt.Fprintf(tw, "  sold_out (409)\t%d\n", r.SoldOut)
	var refusals, hard []string
	for _, k := range r.errorKinds() {
		s := fmt.Sprintf("%s %d", k, r.Errors[k])
		if shopapi.IsHardError(k) {
			hard = append(hard, s)
		} else {
			refusals = append(refusals, s)
		}
	}
	fmt.Fprintf(tw, "  refusals (403/409/429/503)\t%s\n", listOrNone(refusals))
	errLine := listOrNone(hard)
	if r.Requests > 0 {
		errLine += fmt.Sprintf("  (%.2f%% of requests; limit %.2f%%)", 100*float64(r.HardErrors)/float64(r.Requests), 100*cfg.MaxErrorRate)
	}
	fmt.Fprintf(tw, "  errors (5xx, transport)\t%s\n", errLine)
	l := r.LatencyMS
	fmt.Fprintf(tw, "  latency ms\tp50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n", l.P50, l.P95, l.P99, l.Max)
	fmt.Fprintf(tw, "  \t%s\n", modelNote(r.Model))
	fmt.Fprintf(tw, "  answers per layer\t%s\n", layerList(r.Layers))
	if rt := r.Retries; rt != nil && rt.Rounds > 0 {
		fmt.Fprintf(tw, "  retries\t%s\n", retriesLine(rt))
	}
}

// printHerd prints a herd run's first second, its time to sell out and the
// shop's own account of the herd.
func printHerd(tw io.Writer, h *Herd) {
	f := h.FirstSecond
	fmt.Fprintf(tw, "  first second\t%d answers (%d orders, %d accepted, %d sold_out); latency from the send ms p50 %.2f  p99 %.2f\n",
		f.Requests, f.Orders, f.Accepted, f.SoldOut, f.LatencyMS.P50, f.LatencyMS.P99)
	fmt.Fprintf(tw, "  \tper layer: %s\n", layerList(f.Layers))
	fmt.Fprintf(tw, "  time to sell out\t%s (opening %s)\n", sellOut(h), h.OpensAt.Format("15:04:05.000"))
	for i, line := range shopHerdLines(h.Shop) {
		key := ""
		if i == 0 {
			key = "  the shop's herd (dashboard)"
		}
		fmt.Fprintf(tw, "%s\t%s\n", key, line)
	}
}

// printDatabase prints what the database says of the sale: its figures,
// the lock's cycle, the reservations, the verdict and linearizability.
func printDatabase(tw io.Writer, r Result) {
	v := r.View
	fmt.Fprintf(tw, "  database\tsold %d  stock %d  oversold %d  lost updates %d  duplicates %d  violations %d  fenced writes %d\n",
		v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Duplicates, v.Violations, v.FencedWrites)
	if c := v.LockCycle; c != nil && c.Sections > 0 {
		how := "one order at most per hold"
		if v.Combine {
			how = "combining: one batch per hold"
		}
		fmt.Fprintf(tw, "  lock	%d acquisitions, one transaction each, for %d orders: %.1f units per hold (%s); hold %.2f ms, hand-over %.2f ms\n",
			c.Sections, c.Orders, c.UnitsPerHold, how, c.HoldMS, c.HandoverMS)
	}
	if rv := v.Reservations; rv != nil && rv.Reserved+rv.Paid+rv.Expired > 0 {
		fmt.Fprintf(tw, "  reservations\treserved %d  paid %d  expired %d  returned %d\n", rv.Reserved, rv.Paid, rv.Expired, rv.Returned)
	}
	if v.Verdict != nil {
		fmt.Fprintf(tw, "  data\t%s: %s\n", v.Verdict.Word(), v.Verdict.ReasonEn)
	}
	fmt.Fprintf(tw, "  linearizable?\t%s\n", historyLine(r.History))
}

// explain is the verdict with its reason, for people.
func explain(r Result) string {
	switch r.Verdict {
	case VerdictExpected:
		return VerdictExpected + ": the strategy is not safe and broke the sale, as expected (not a failure)"
	case VerdictOversold:
		return VerdictOversold + ": a strategy meant to be safe sold more than the stock"
	case VerdictViolations:
		return VerdictViolations + ": a strategy meant to be safe lost updates, overlapped critical sections or duplicated a buyer"
	case VerdictErrors:
		return VerdictErrors + ": hard errors above --max-error-rate"
	case VerdictMismatch, VerdictUnsettled, VerdictLost, VerdictDrift:
		return r.Verdict + ": " + QueueProblem(r)
	case VerdictOK:
		if !r.Safe {
			return VerdictOK + " (unsafe strategy; it happened to hold this time)"
		}
	}
	return r.Verdict
}

// printQueue prints an async sale's tickets and queue figures.
func printQueue(w io.Writer, r Result, q *Queue) {
	drained := fmt.Sprintf("drained %.3f s after the load", q.DrainS)
	if !q.Drained {
		drained = fmt.Sprintf("NOT drained %.3f s after the load", q.DrainS)
	}
	fmt.Fprintf(w, "  queue\t%d tickets, accepted at %.1f/s; %s\n", q.Tickets, q.AcceptedPerS, drained)
	fmt.Fprintf(w, "  tickets\tconfirmed %d (mismatched %d)  failed %d (%s)  lost %d  unsettled %d\n",
		q.Confirmed, q.Mismatched, q.Failed, layerList(q.FailedReasons), q.Lost, q.Unsettled)
	fmt.Fprintf(w, "  confirmed\t%.1f orders/s (first 202 to last confirmation); 202 to confirmed ms p50 %.2f  p99 %.2f\n",
		q.ConfirmedPerS, q.ConfirmP50MS, q.ConfirmP99MS)
	drift := "unknown (no reconciliation answer)"
	if q.Drift != nil {
		drift = strconv.FormatInt(*q.Drift, 10)
	}
	fmt.Fprintf(w, "  reconcile\tdrift %s; stream durability %s\n", drift, orUnknown(q.Durability))
}

// layerList is "layer n" pairs, sorted by layer.
func layerList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	items := make([]string, len(keys))
	for i, k := range keys {
		items[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return listOrNone(items)
}

// sellOut is the herd's time to sell out, for people.
func sellOut(h *Herd) string {
	if h.SellOutS == nil {
		return "not sold out"
	}
	return fmt.Sprintf("%.3f s from the opening to the last order", *h.SellOutS)
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// PrintComparison prints one row per strategy.
func PrintComparison(w io.Writer, results []Result) {
	fmt.Fprintln(w, "== comparison")
	// Numbers align right; the names are padded by hand to stay left-aligned.
	width := len("strategy")
	for _, r := range results {
		width = max(width, len(r.Strategy))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	herd := results[0].Herd != nil
	fmt.Fprintf(tw, "%-*s\tsafe\treq/s\torders/s\tp50 ms\tp99 ms\tsold\toversold\tlost updates\tviolations\tfenced\tdata\thard errors\tverdict\thistory\t", width, "strategy")
	if herd {
		fmt.Fprint(tw, "1st s req\t1st s p99 ms\tsell-out s\t")
	}
	fmt.Fprintln(tw)
	for _, r := range results {
		safe := "no"
		if r.Safe {
			safe = "yes"
		}
		v := r.View
		fmt.Fprintf(tw, "%-*s\t%s\t%.0f\t%.1f\t%.2f\t%.2f\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%s\t", width, r.Strategy, safe, r.RequestsPerS, r.OrdersPerS,
			r.LatencyMS.P50, r.LatencyMS.P99, v.Sold, v.Oversold, v.LostUpdates, v.Violations, v.FencedWrites, v.Verdict.Word(), r.HardErrors, r.Verdict, historyVerdict(r.History))
		if h := r.Herd; herd && h != nil {
			so := "-"
			if h.SellOutS != nil {
				so = fmt.Sprintf("%.3f", *h.SellOutS)
			}
			fmt.Fprintf(tw, "%d\t%.2f\t%s\t", h.FirstSecond.Requests, h.FirstSecond.LatencyMS.P99, so)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if len(results) > 0 {
		fmt.Fprintf(w, "(%s)\n", modelNote(results[0].Model))
	}
}

// WriteJSON writes rep to path, indented, ending with a newline.
func WriteJSON(path string, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
