package locktest

// Reporting: benchmark metrics per case, and one Markdown table per run with
// the ratios the `redis` lock is held to (against redsync-defaults at 64
// contenders: throughput >= 0.9x, p99 wait <= 0.1x).

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// Report attaches r to the running benchmark as custom metrics. ns/op is
// replaced by the time per critical section: b.N is not the unit of work
// here, the window is.
func Report(b *testing.B, r Result) {
	b.Helper()
	if r.Ops > 0 {
		b.ReportMetric(float64(r.Elapsed.Nanoseconds())/float64(r.Ops), "ns/op")
	}
	b.ReportMetric(r.PerSecond(), "locks/s")
	b.ReportMetric(r.WaitMs(50), "wait_p50_ms")
	b.ReportMetric(r.WaitMs(99), "wait_p99_ms")
	b.ReportMetric(r.MaxWaitMs(), "wait_max_ms")
	b.ReportMetric(r.OvertakePct(), "overtaken_%")
}

// PrintTable writes rs as one Markdown table, in the order given.
func PrintTable(w io.Writer, rs []Result) {
	fmt.Fprintln(w, "| strategy | contenders | work | locks/s | wait p50 ms | wait p99 ms | wait max ms | overtaken % | per contender (min-max) | give-ups | errors | overlaps |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %d | %v | %.0f | %.2f | %.2f | %.2f | %.1f | %s | %d | %d | %d |\n",
			r.Strategy, r.Contenders, r.Work, r.PerSecond(), r.WaitMs(50), r.WaitMs(99), r.MaxWaitMs(),
			r.OvertakePct(), r.Spread(), r.GiveUps, r.Errs, r.Overlaps)
	}
}

// Ratio is mine/peer for one round (one matching pair of results).
type Ratio struct {
	Throughput float64 // mine locks/s over peer locks/s
	P99Wait    float64 // mine p99 wait over peer p99 wait
}

// Ratios pairs, in order, the results of mine and peer at contenders and
// work (one pair per go test -count round) and returns their ratios. Pairs
// where the peer completed nothing are left out.
func Ratios(rs []Result, mine, peer string, contenders int, work time.Duration) []Ratio {
	pick := func(name string) []Result {
		var out []Result
		for _, r := range rs {
			if r.Strategy == name && r.Contenders == contenders && r.Work == work {
				out = append(out, r)
			}
		}
		return out
	}
	m, p := pick(mine), pick(peer)
	var out []Ratio
	for i := range min(len(m), len(p)) {
		if p[i].Ops == 0 || p[i].Wait.ValueAtQuantile(99) == 0 {
			continue
		}
		out = append(out, Ratio{
			Throughput: m[i].PerSecond() / p[i].PerSecond(),
			P99Wait:    float64(m[i].Wait.ValueAtQuantile(99)) / float64(p[i].Wait.ValueAtQuantile(99)),
		})
	}
	return out
}

// PrintRatios writes, per work time, the ratios of mine to peer at
// contenders: every round and the median, with those targets.
func PrintRatios(w io.Writer, rs []Result, mine, peer string, contenders int, works []time.Duration) {
	for _, work := range works {
		ratios := Ratios(rs, mine, peer, contenders, work)
		if len(ratios) == 0 {
			continue
		}
		var thr, p99 []float64
		for _, r := range ratios {
			thr, p99 = append(thr, r.Throughput), append(p99, r.P99Wait)
		}
		fmt.Fprintf(w, "%d contenders, work %v: %s/%s throughput %s median %.2f (target >= 0.9); "+
			"p99 wait %s median %.3f (target <= 0.1)\n",
			contenders, work, mine, peer, fmtAll(thr), median(thr), fmtAll(p99), median(p99))
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func fmtAll(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.3g", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// PrintTarget writes the median ratios of mine to peer at contenders and
// work against a target (throughput at least minThroughput times the
// peer's, p99 wait at most maxP99Wait times), with the verdict.
func PrintTarget(w io.Writer, rs []Result, mine, peer string, contenders int, work time.Duration, minThroughput, maxP99Wait float64) {
	ratios := Ratios(rs, mine, peer, contenders, work)
	if len(ratios) == 0 {
		fmt.Fprintf(w, "%d contenders, work %v: %s/%s not measured\n", contenders, work, mine, peer)
		return
	}
	var thr, p99 []float64
	for _, r := range ratios {
		thr, p99 = append(thr, r.Throughput), append(p99, r.P99Wait)
	}
	verdict := "met"
	if median(thr) < minThroughput || median(p99) > maxP99Wait {
		verdict = "MISSED"
	}
	fmt.Fprintf(w, "%d contenders, work %v: %s/%s throughput %s median %.2f (target >= %.1f); "+
		"p99 wait %s median %.2f (target <= %.1f): %s\n",
		contenders, work, mine, peer, fmtAll(thr), median(thr), minThroughput, fmtAll(p99), median(p99), maxP99Wait, verdict)
}
