// Package claims judges the seeds' performance claims on figures measured
// on this machine: locked sections (or orders) per second per strategy,
// measured side by side under the same conditions. The contention
// benchmark (make bench) and the dashboard's comparison view (GET
// /api/claims) both print them.
package claims

import (
	"fmt"
	"sort"
	"strings"
)

// A Claim is one performance claim of the seeds and its verdict.
type Claim struct {
	Seed     string `json:"seed"`     // the seed and its own sentence
	Claim    string `json:"claim"`    // what is checked, in our words
	Measured string `json:"measured"` // the figures it was judged on, with their conditions
	Verdict  string `json:"verdict"`  // Holds, DoesNotHold or NotMeasured
}

// The verdicts.
const (
	Holds       = "holds"
	DoesNotHold = "does not hold"
	NotMeasured = "not measured"
)

// DBLocks are the strategies that lock in the database.
var DBLocks = []string{"db-pessimistic", "db-lock-table"}

// Judge judges two claims, Redis > ZooKeeper >= the database in speed and
// every DB lock under 1,000/s, on perSecond
// (strategy -> figure per second; absent or 0: not measured), measured
// under conditions (said in every Measured).
func Judge(perSecond map[string]float64, conditions string) []Claim {
	ops := map[string]float64{}
	for k, v := range perSecond {
		if v > 0 {
			ops[k] = v
		}
	}
	bestDB, bestDBName := 0.0, ""
	for _, n := range DBLocks {
		if v, ok := ops[n]; ok && v > bestDB {
			bestDB, bestDBName = v, n
		}
	}
	rank := Claim{Seed: "seed 000: 「从性能角度(从高到低)Redis > Zookeeper >= 数据库」",
		Claim: "throughput: redis > zookeeper >= the best database lock"}
	redis, okR := ops["redis"]
	zk, okZ := ops["zookeeper"]
	switch {
	case !okR || !okZ || bestDBName == "":
		rank.Verdict = NotMeasured
		rank.Measured = conditions + ": missing " + missing(ops, "redis", "zookeeper", "a database lock")
	default:
		rank.Measured = fmt.Sprintf("%s: redis %.0f/s, zookeeper %.0f/s, %s %.0f/s", conditions, redis, zk, bestDBName, bestDB)
		rank.Verdict = DoesNotHold
		if redis > zk && zk >= bestDB {
			rank.Verdict = Holds
		}
	}
	ceiling := Claim{Seed: "seed 004: 「因为单实例DB的TPS一般为几百,所以基于DB的分布式性能上限一般也是1k以下」",
		Claim: "every database lock stays under 1,000 per second"}
	if bestDBName == "" {
		ceiling.Verdict = NotMeasured
		ceiling.Measured = conditions + ": missing a database lock"
	} else {
		var parts []string
		for _, n := range DBLocks {
			if v, ok := ops[n]; ok {
				parts = append(parts, fmt.Sprintf("%s %.0f/s", n, v))
			}
		}
		ceiling.Measured = conditions + ": " + strings.Join(parts, ", ")
		ceiling.Verdict = DoesNotHold
		if bestDB < 1000 {
			ceiling.Verdict = Holds
		}
	}
	return []Claim{rank, ceiling}
}

// missing names what the ranking needs and ops lacks.
func missing(ops map[string]float64, need ...string) string {
	var out []string
	for _, n := range need {
		if n == "a database lock" {
			found := false
			for _, d := range DBLocks {
				_, ok := ops[d]
				found = found || ok
			}
			if !found {
				out = append(out, n+" ("+strings.Join(DBLocks, " or ")+")")
			}
			continue
		}
		if _, ok := ops[n]; !ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
