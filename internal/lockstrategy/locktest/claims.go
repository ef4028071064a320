package locktest

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// A Claim is a performance claim of the seeds, judged against the
// contention benchmark's figures of this machine.
type Claim struct {
	Seed     string // the seed and its own sentence
	Claim    string // what is checked, in our words
	Measured string // the figures it was judged on
	Verdict  string // holds, does not hold, or not measured in this run
}

// The verdicts.
const (
	Holds       = "holds"
	DoesNotHold = "does not hold"
	NotMeasured = "not measured in this run"
)

// dbLocks are the strategies that lock in the database.
var dbLocks = []string{"db-pessimistic", "db-lock-table"}

// Claims judges the seeds' performance claims on rs at contenders and
// work: each lock's critical sections per second, side by side in one run.
func Claims(rs []Result, contenders int, work time.Duration) []Claim {
	ops := map[string]float64{}
	for _, r := range rs {
		if r.Contenders == contenders && r.Work == work && r.Ops > 0 {
			ops[r.Strategy] = r.PerSecond()
		}
	}
	bestDB, bestDBName := 0.0, ""
	for _, n := range dbLocks {
		if v, ok := ops[n]; ok && v > bestDB {
			bestDB, bestDBName = v, n
		}
	}
	at := fmt.Sprintf("%d contenders, work %v", contenders, work)
	var out []Claim

	rank := Claim{Seed: "seed 000: 「从性能角度(从高到低)Redis > Zookeeper >= 数据库」",
		Claim: "throughput: redis > zookeeper >= the best database lock"}
	redis, okR := ops["redis"]
	zk, okZ := ops["zookeeper"]
	if !okR || !okZ || bestDBName == "" {
		rank.Verdict, rank.Measured = NotMeasured, at
	} else {
		rank.Measured = fmt.Sprintf("%s: redis %.0f/s, zookeeper %.0f/s, %s %.0f/s", at, redis, zk, bestDBName, bestDB)
		rank.Verdict = DoesNotHold
		if redis > zk && zk >= bestDB {
			rank.Verdict = Holds
		}
	}
	out = append(out, rank)

	ceiling := Claim{Seed: "seed 004: 「因为单实例DB的TPS一般为几百,所以基于DB的分布式性能上限一般也是1k以下」",
		Claim: "every database lock stays under 1,000 locked sections/s"}
	if bestDBName == "" {
		ceiling.Verdict, ceiling.Measured = NotMeasured, at
	} else {
		var parts []string
		for _, n := range dbLocks {
			if v, ok := ops[n]; ok {
				parts = append(parts, fmt.Sprintf("%s %.0f/s", n, v))
			}
		}
		ceiling.Measured = at + ": " + strings.Join(parts, ", ")
		ceiling.Verdict = DoesNotHold
		if bestDB < 1000 {
			ceiling.Verdict = Holds
		}
	}
	return append(out, ceiling)
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
