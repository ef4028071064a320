package locktest

import (
	"fmt"
	"io"
	"time"

	"github.com/seckill-lab/seckill/internal/claims"
)

// Claim is a claim of the seeds judged on the benchmark's figures.
type Claim = claims.Claim

// Claims judges the seeds' performance claims on rs at contenders and
// work: each lock's critical sections per second, side by side in one run.
func Claims(rs []Result, contenders int, work time.Duration) []Claim {
	ops := map[string]float64{}
	for _, r := range rs {
		if r.Contenders == contenders && r.Work == work && r.Ops > 0 {
			ops[r.Strategy] = r.PerSecond()
		}
	}
	return claims.Judge(ops, fmt.Sprintf("%d contenders, work %v, locked sections", contenders, work))
}

// PrintClaims writes the claims table (Markdown) for each work at
// contenders.
func PrintClaims(w io.Writer, rs []Result, contenders int, works []time.Duration) {
	fmt.Fprintln(w, "The seeds' performance claims, checked on this machine:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| seed says | checked | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, work := range works {
		for _, c := range Claims(rs, contenders, work) {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.Seed, c.Claim, c.Measured, c.Verdict)
		}
	}
}
