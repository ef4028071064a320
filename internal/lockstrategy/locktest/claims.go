package locktest

import (
	"fmt"
	"io"
	"time"

	"github.com/seckill-lab/seckill/internal/claims"
)

// Claim is a claim of the seeds judged on the benchmark's figures.
type Claim = claims.Claim

// Claims judges the seeds' claims on rs at contenders and work: each
// lock's critical sections per second in every round (a strategy's results
// at the same contenders and work are its runs), and the database's own
// transactions per second (tps: connections -> per round; tpsCond says how, built by
// claims.DBTPSConditions).
func Claims(rs []Result, contenders int, work time.Duration, tps map[int][]float64, tpsCond claims.Text) []Claim {
	ops := map[string][]float64{}
	rounds := 0
	for _, r := range rs {
		if r.Contenders == contenders && r.Work == work && r.Ops > 0 {
			ops[r.Strategy] = append(ops[r.Strategy], r.PerSecond())
			rounds = max(rounds, len(ops[r.Strategy]))
		}
	}
	cond := claims.BenchConditions(contenders, work, rounds)
	return claims.Judge(claims.Figures{
		Conditions: cond.En, ConditionsZh: cond.Zh,
		PerSecond: ops, DBTPS: tps, DBTPSConditions: tpsCond.En, DBTPSConditionsZh: tpsCond.Zh,
	})
}

// PrintClaims writes the claims table (Markdown) for each work at
// contenders; the claims that do not depend on the work (the database's
// TPS, the complexity ranking) once.
func PrintClaims(w io.Writer, rs []Result, contenders int, works []time.Duration, tps map[int][]float64, tpsCond claims.Text) {
	fmt.Fprintln(w, "The seeds' claims, checked on this machine (inconclusive: the compared ranges overlap):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| seed says | checked | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	seen := map[string]bool{}
	for _, work := range works {
		for _, c := range Claims(rs, contenders, work, tps, tpsCond) {
			if seen[c.Seed+c.Measured] {
				continue
			}
			seen[c.Seed+c.Measured] = true
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.Seed, c.Claim, c.Measured, c.Verdict)
		}
	}
}
