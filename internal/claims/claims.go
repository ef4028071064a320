// Package claims judges the seeds' performance claims on figures measured
// on this machine over repeated runs: locked sections (or orders) per
// second per strategy, and the database's own transactions per second, each
// run of them side by side under the same conditions. A comparison decides
// only when the compared figures' ranges (min-max over the runs) do not
// overlap; inside the noise the answer is "inconclusive". The claims
// benchmark (make bench) and the dashboard's comparison view (GET
// /api/claims) both print them.
package claims

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Claim is one claim of the seeds and its verdict.
type Claim struct {
	Seed     string `json:"seed"`     // the seed and its own sentence
	Claim    string `json:"claim"`    // what is checked, in our words
	ClaimZh  string `json:"claim_zh"` // the same in Chinese
	Measured string `json:"measured"` // the figures it was judged on (median, min-max, runs), with their conditions
	Verdict  string `json:"verdict"`  // one of the verdicts below
}

// The verdicts.
const (
	Holds             = "holds"
	DoesNotHold       = "does not hold"
	Inconclusive      = "inconclusive" // the compared ranges overlap, or too few runs
	NotMeasured       = "not measured"
	ContradictsItself = "contradicts itself" // a claim of words, judged on the seed's own text
)

// DBLocks are the database strategies the claims compare. db-optimistic
// takes no lock (a CAS write with retries): a run of orders measures it, the
// lock benchmark cannot, and the claims say so when it is missing.
var DBLocks = []string{"db-pessimistic", "db-lock-table", "db-optimistic"}

// Figures is what the claims are judged on.
type Figures struct {
	// Conditions says how PerSecond was measured (said in every Measured).
	Conditions string
	// PerSecond: strategy -> its figure per second in each run.
	PerSecond map[string][]float64
	// DBTPS: connections -> the database's own transactions per second in
	// each run (UPDATE ... WHERE stock > 0 on one row, autocommit).
	DBTPS map[int][]float64
	// DBTPSConditions says how DBTPS was measured (the server's flush settings).
	DBTPSConditions string
}

// Judge judges every claim on f.
func Judge(f Figures) []Claim {
	sp := map[string]Spread{}
	for name, runs := range f.PerSecond {
		var pos []float64
		for _, v := range runs {
			if v > 0 {
				pos = append(pos, v)
			}
		}
		if len(pos) > 0 {
			sp[name] = SpreadOf(pos)
		}
	}
	return []Claim{ranking(sp, f.Conditions), ceiling(sp, f.Conditions), dbTPS(f), redlockCost(sp, f.Conditions),
		polling(sp, f.Conditions), complexity()}
}

// tally folds decided comparisons into a verdict: one that fails decides
// "does not hold", all that hold decide "holds", anything else is inside
// the noise.
type tally struct{ fail, inside bool }

func (t *tally) want(o, want Order) {
	switch o {
	case want:
	case Inside:
		t.inside = true
	default:
		t.fail = true
	}
}

func (t tally) verdict() string {
	switch {
	case t.fail:
		return DoesNotHold
	case t.inside:
		return Inconclusive
	}
	return Holds
}

// dbLocks lists the measured DB locks' spreads as text, and why
// db-optimistic is missing when it is.
func dbLocks(sp map[string]Spread) (names []string, text string) {
	var parts []string
	for _, n := range DBLocks {
		if s, ok := sp[n]; ok {
			names = append(names, n)
			parts = append(parts, n+" "+s.String())
		}
	}
	if _, ok := sp["db-optimistic"]; !ok {
		parts = append(parts, "db-optimistic not in these runs (it takes no lock, a CAS write with retries: "+
			"the lock benchmark cannot time it, a run of orders can)")
	}
	return names, strings.Join(parts, ", ")
}

func ranking(sp map[string]Spread, cond string) Claim {
	c := Claim{Seed: "seed 000: 「从性能角度(从高到低)Redis > Zookeeper >= 数据库」",
		Claim:   "throughput: redis > zookeeper >= every database lock, each gap wider than the runs' spread",
		ClaimZh: "吞吐量：redis > zookeeper >= 每种数据库锁，每个差距都要大于多次运行的波动范围"}
	redis, okR := sp["redis"]
	zk, okZ := sp["zookeeper"]
	dbs, dbText := dbLocks(sp)
	if !okR || !okZ || len(dbs) == 0 {
		c.Verdict = NotMeasured
		c.Measured = cond + ": missing " + missing(sp, "redis", "zookeeper", "a database lock")
		return c
	}
	var t tally
	t.want(Compare(redis, zk), Above)
	for _, n := range dbs {
		// ">=": zookeeper below a DB lock refutes it; overlapping is not
		// shown either way.
		t.want(Compare(zk, sp[n]), Above)
	}
	c.Verdict = t.verdict()
	c.Measured = fmt.Sprintf("%s: redis %s, zookeeper %s, %s", cond, redis, zk, dbText)
	return c
}

func ceiling(sp map[string]Spread, cond string) Claim {
	c := Claim{Seed: "seed 004: 「因为单实例DB的TPS一般为几百,所以基于DB的分布式性能上限一般也是1k以下」",
		Claim:   "every database lock stays under 1,000 per second, in every run",
		ClaimZh: "每种数据库锁在每次运行中都低于每秒 1,000 次"}
	dbs, dbText := dbLocks(sp)
	if len(dbs) == 0 {
		c.Verdict, c.Measured = NotMeasured, cond+": missing a database lock"
		return c
	}
	var t tally
	for _, n := range dbs {
		t.want(CompareBound(sp[n], 1000), Below)
	}
	c.Verdict, c.Measured = t.verdict(), cond+": "+dbText
	return c
}

func dbTPS(f Figures) Claim {
	c := Claim{Seed: "seed 004: 「单实例DB的TPS一般为几百」",
		Claim: "the database alone runs a few hundred (100-999) transactions per second: UPDATE ... SET stock = stock - 1 " +
			"WHERE stock > 0 on one row, autocommit, from one connection and from several",
		ClaimZh: "数据库自身每秒只能执行几百（100-999）个事务：对同一行执行 UPDATE ... SET stock = stock - 1 WHERE stock > 0，" +
			"自动提交，分别用一个连接和多个连接"}
	if len(f.DBTPS) == 0 {
		c.Verdict, c.Measured = NotMeasured, "not in these figures: make bench (BenchmarkClaims) measures it"
		return c
	}
	var (
		t     tally
		parts []string
	)
	for _, conns := range slices.Sorted(maps.Keys(f.DBTPS)) {
		s := SpreadOf(f.DBTPS[conns])
		parts = append(parts, fmt.Sprintf("%d connection(s) %s", conns, s))
		t.want(CompareBound(s, 1000), Below)
		t.want(CompareBound(s, 100), Above)
	}
	c.Verdict, c.Measured = t.verdict(), f.DBTPSConditions+": "+strings.Join(parts, ", ")
	return c
}

func redlockCost(sp map[string]Spread, cond string) Claim {
	c := Claim{Seed: "seed 002: 「Redlock 成本高,性能也比较差」",
		Claim: "redlock is slower than the single-Redis lock (redis); its cost is 3 independent masters here against 1, " +
			"each acquisition a round trip to all of them",
		ClaimZh: "redlock 比单个 Redis 的锁（redis）慢；它的成本是这里的 3 个独立主节点对 1 个，每次加锁都要访问所有主节点"}
	rl, okL := sp["redlock"]
	redis, okR := sp["redis"]
	if !okL || !okR {
		c.Verdict, c.Measured = NotMeasured, cond+": missing "+missing(sp, "redlock", "redis")
		return c
	}
	var t tally
	t.want(Compare(rl, redis), Below)
	c.Verdict, c.Measured = t.verdict(), fmt.Sprintf("%s: redlock %s, redis %s", cond, rl, redis)
	return c
}

// pollingName is the measured strategy that waits by polling (its name
// says "poll"), or "".
func pollingName(sp map[string]Spread) string {
	for _, n := range slices.Sorted(maps.Keys(sp)) {
		if strings.Contains(n, "poll") {
			return n
		}
	}
	return ""
}

func polling(sp map[string]Spread, cond string) Claim {
	c := Claim{Seed: "seed 003: 「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」",
		Claim: "a Redis lock whose waiters poll is slower than redis, whose waiters are handed the lock in turn (FIFO); " +
			"the commands per acquisition and Redis's CPU are the polling-vs-subscribe lesson's",
		ClaimZh: "等待者轮询的 Redis 锁比 redis（等待者按顺序（FIFO）接手锁）慢；每次加锁的命令数和 Redis 的 CPU " +
			"由 polling-vs-subscribe 实验课来测"}
	p := pollingName(sp)
	redis, okR := sp["redis"]
	if p == "" || !okR {
		c.Verdict = NotMeasured
		c.Measured = "not measured in this table (no benchmarked strategy waits by polling): the polling-vs-subscribe lesson " +
			"measures it, commands per acquisition and Redis's CPU of redis-no-owner's SET NX retry loop against redisson and redis"
		if p != "" {
			c.Measured = cond + ": missing redis"
		}
		return c
	}
	var t tally
	t.want(Compare(sp[p], redis), Below)
	c.Verdict, c.Measured = t.verdict(), fmt.Sprintf("%s: %s %s, redis %s", cond, p, sp[p], redis)
	return c
}

// complexity is seed 000's ranking by complexity: words, not a figure, and
// its own text contradicts it.
func complexity() Claim {
	return Claim{
		Seed: "seed 000: 「从实现的复杂性角度(从低到高)Zookeeper > Redis > 数据库」, beside 「从理解的难易程度角度(从低到高)数据库 > Redis > Zookeeper」",
		Claim: "complexity of implementation, from low to high: zookeeper, redis, the database (a ranking of words, " +
			"judged on the seed's own text)",
		ClaimZh: "实现的复杂性，从低到高：zookeeper、redis、数据库（文字上的排序，依据参考文章自己的文字判定）",
		Measured: "not a figure. Read by its heading (from low to high), the database is the most complex to implement, " +
			"while the line above it, in the same order, makes the database the easiest to understand and ZooKeeper the " +
			"hardest, and seed 000's own list of the database lock's merits opens with 「简单,使用方便」; read by its " +
			"sign (>, more), ZooKeeper is the most complex, which contradicts the heading. Either way it contradicts itself.",
		Verdict: ContradictsItself,
	}
}

// missing names what a claim needs and sp lacks.
func missing(sp map[string]Spread, need ...string) string {
	var out []string
	for _, n := range need {
		if n == "a database lock" {
			if names, _ := dbLocks(sp); len(names) == 0 {
				out = append(out, n+" ("+strings.Join(DBLocks, " or ")+")")
			}
			continue
		}
		if _, ok := sp[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
