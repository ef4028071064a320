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
	"unicode/utf8"
)

// A Claim is one claim of the seeds and its verdict. Every text the
// dashboard shows comes in English and in simplified Chinese (the _zh
// twin, built with the English from the same figures); the seeds' own
// words (in 「」) stay verbatim in both.
type Claim struct {
	Seed       string `json:"seed"`        // the seed and its own sentence
	SeedZh     string `json:"seed_zh"`     // the same in Chinese, the sentence verbatim
	Claim      string `json:"claim"`       // what is checked, in our words
	ClaimZh    string `json:"claim_zh"`    // the same in Chinese
	Measured   string `json:"measured"`    // the figures it was judged on (median, min-max, runs), with their conditions
	MeasuredZh string `json:"measured_zh"` // the same in Chinese
	Verdict    string `json:"verdict"`     // one of the verdicts below
}

// seed sets the seed's number and its own sentence (quote, in 「」) in
// both languages.
func (c *Claim) seed(n, quote string) {
	c.Seed, c.SeedZh = "seed "+n+": "+quote, "参考文章 "+n+"："+quote
}

// seedBeside sets the seed's sentence (quote) and the one above it in its
// text (above), in both languages.
func (c *Claim) seedBeside(n, quote, above string) {
	c.Seed, c.SeedZh = "seed "+n+": "+quote+", with the line above it: "+above, "参考文章 "+n+"："+quote+"，其上一行："+above
}

// measured sets what the claim was judged on, in both languages.
func (c *Claim) measured(t Text) { c.Measured, c.MeasuredZh = t.En, t.Zh }

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
	// Conditions says how PerSecond was measured (said in every Measured);
	// ConditionsZh the same in Chinese (in every MeasuredZh). Build both
	// with RunConditions, BenchConditions or NoRunConditions; an empty
	// ConditionsZh falls back to Conditions.
	Conditions, ConditionsZh string
	// PerSecond: strategy -> its figure per second in each run.
	PerSecond map[string][]float64
	// DBTPS: connections -> the database's own transactions per second in
	// each run (UPDATE ... WHERE stock > 0 on one row, autocommit).
	DBTPS map[int][]float64
	// DBTPSConditions says how DBTPS was measured (the server's flush
	// settings); DBTPSConditionsZh the same in Chinese (DBTPSConditions
	// builds both; empty: DBTPSConditions).
	DBTPSConditions, DBTPSConditionsZh string
}

// orEn is zh, or en when zh is empty (a caller that says its conditions in
// English only).
func orEn(en, zh string) Text {
	if zh == "" {
		return Text{en, en}
	}
	return Text{en, zh}
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
	cond := orEn(f.Conditions, f.ConditionsZh)
	return []Claim{ranking(sp, cond), ceiling(sp, cond), dbTPS(f), redlockCost(sp, cond),
		polling(sp, cond), complexity()}
}

// named is a strategy's figure: "redis 3000/s (2900-3100, 3 runs)".
func named(name string, s Spread) Text {
	t := s.Text()
	return Text{name + " " + t.En, name + " " + t.Zh}
}

// figures is the conditions and then the figures judged on.
func figures(cond Text, parts ...Text) Text {
	t := join(parts, ", ", "；")
	return Text{cond.En + ": " + t.En, cond.Zh + "：" + t.Zh}
}

// lacks is the conditions and what a claim needed and they lacked
// ("缺少 redis", "缺少数据库锁": a space before Latin letters only).
func lacks(cond, what Text) Text {
	zh := what.Zh
	if zh != "" && zh[0] < utf8.RuneSelf {
		zh = " " + zh
	}
	return Text{cond.En + ": missing " + what.En, cond.Zh + "：缺少" + zh}
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
func dbLocks(sp map[string]Spread) (names []string, text Text) {
	var parts []Text
	for _, n := range DBLocks {
		if s, ok := sp[n]; ok {
			names = append(names, n)
			parts = append(parts, named(n, s))
		}
	}
	if _, ok := sp["db-optimistic"]; !ok {
		parts = append(parts, Text{
			"db-optimistic not in these runs (it takes no lock, a CAS write with retries: " +
				"the lock benchmark cannot time it, a run of orders can)",
			"db-optimistic 不在这些压测中（它不加锁，而是带重试的 CAS 写入：锁的基准测试无法为它计时，下单压测可以）"})
	}
	return names, join(parts, ", ", "；")
}

// aDBLock is what the ceiling lacks without a database lock.
var aDBLock = Text{"a database lock", "数据库锁"}

func ranking(sp map[string]Spread, cond Text) Claim {
	c := Claim{
		Claim:   "throughput: redis > zookeeper >= every database lock, each gap wider than the runs' spread",
		ClaimZh: "吞吐量：redis > zookeeper >= 每种数据库锁，每个差距都要大于多次压测的波动范围"}
	c.seed("000", "「从性能角度(从高到低)Redis > Zookeeper >= 数据库」")
	redis, okR := sp["redis"]
	zk, okZ := sp["zookeeper"]
	dbs, dbText := dbLocks(sp)
	if !okR || !okZ || len(dbs) == 0 {
		c.Verdict = NotMeasured
		c.measured(lacks(cond, missing(sp, "redis", "zookeeper", aDBLock.En)))
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
	c.measured(figures(cond, named("redis", redis), named("zookeeper", zk), dbText))
	return c
}

func ceiling(sp map[string]Spread, cond Text) Claim {
	c := Claim{
		Claim:   "every database lock stays under 1,000 per second, in every run",
		ClaimZh: "每种数据库锁在每次压测中都低于每秒 1,000 次"}
	c.seed("004", "「因为单实例DB的TPS一般为几百,所以基于DB的分布式性能上限一般也是1k以下」")
	dbs, dbText := dbLocks(sp)
	if len(dbs) == 0 {
		c.Verdict = NotMeasured
		c.measured(lacks(cond, aDBLock))
		return c
	}
	var t tally
	for _, n := range dbs {
		t.want(CompareBound(sp[n], 1000), Below)
	}
	c.Verdict = t.verdict()
	c.measured(figures(cond, dbText))
	return c
}

func dbTPS(f Figures) Claim {
	c := Claim{
		Claim: "the database alone runs a few hundred (100-999) transactions per second: UPDATE ... SET stock = stock - 1 " +
			"WHERE stock > 0 on one row, autocommit, from one connection and from several",
		ClaimZh: "数据库自身每秒只能执行几百（100-999）个事务：对同一行执行 UPDATE ... SET stock = stock - 1 WHERE stock > 0，" +
			"自动提交，分别用一个连接和多个连接"}
	c.seed("004", "「单实例DB的TPS一般为几百」")
	if len(f.DBTPS) == 0 {
		c.Verdict = NotMeasured
		c.measured(Text{"not in these figures: make bench (BenchmarkClaims) measures it",
			"这些数据里没有：由 make bench（BenchmarkClaims）测量"})
		return c
	}
	var (
		t     tally
		parts []Text
	)
	for _, conns := range slices.Sorted(maps.Keys(f.DBTPS)) {
		s := SpreadOf(f.DBTPS[conns])
		parts = append(parts, Text{fmt.Sprintf("%d connection(s) %s", conns, s), fmt.Sprintf("%d 个连接 %s", conns, s.Text().Zh)})
		t.want(CompareBound(s, 1000), Below)
		t.want(CompareBound(s, 100), Above)
	}
	c.Verdict = t.verdict()
	c.measured(figures(orEn(f.DBTPSConditions, f.DBTPSConditionsZh), parts...))
	return c
}

func redlockCost(sp map[string]Spread, cond Text) Claim {
	c := Claim{
		Claim: "redlock is slower than the single-Redis lock (redis); its cost is 3 independent masters here against 1, " +
			"each acquisition a round trip to all of them",
		ClaimZh: "redlock 比单个 Redis 的锁（redis）慢；它的成本是这里的 3 个独立主节点对 1 个，每次加锁都要访问所有主节点"}
	c.seed("002", "「Redlock 成本高,性能也比较差」")
	rl, okL := sp["redlock"]
	redis, okR := sp["redis"]
	if !okL || !okR {
		c.Verdict = NotMeasured
		c.measured(lacks(cond, missing(sp, "redlock", "redis")))
		return c
	}
	var t tally
	t.want(Compare(rl, redis), Below)
	c.Verdict = t.verdict()
	c.measured(figures(cond, named("redlock", rl), named("redis", redis)))
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

func polling(sp map[string]Spread, cond Text) Claim {
	c := Claim{
		Claim: "a Redis lock whose waiters poll is slower than redis, whose waiters are handed the lock in turn (FIFO); " +
			"the commands per acquisition and Redis's CPU are the polling-vs-subscribe lesson's",
		ClaimZh: "等待者轮询的 Redis 锁比 redis（等待者按顺序（FIFO）接手锁）慢；每次加锁的命令数和 Redis 的 CPU " +
			"由 polling-vs-subscribe 课来测"}
	c.seed("003", "「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」")
	p := pollingName(sp)
	redis, okR := sp["redis"]
	if p == "" || !okR {
		c.Verdict = NotMeasured
		c.measured(Text{"not measured in this table (no benchmarked strategy waits by polling): the polling-vs-subscribe lesson " +
			"measures it, commands per acquisition and Redis's CPU of redis-no-owner's SET NX retry loop against redisson and redis",
			"本表未测（测过的策略里没有靠轮询等待的）：由 polling-vs-subscribe 课来测，" +
				"对比 redis-no-owner 的 SET NX 重试循环与 redisson、redis：每次加锁的命令数和 Redis 的 CPU"})
		if p != "" {
			c.measured(lacks(cond, Text{"redis", "redis"}))
		}
		return c
	}
	var t tally
	t.want(Compare(sp[p], redis), Below)
	c.Verdict = t.verdict()
	c.measured(figures(cond, named(p, sp[p]), named("redis", redis)))
	return c
}

// complexity is seed 000's ranking by complexity: words, not a figure, and
// its own text contradicts it.
func complexity() Claim {
	c := Claim{
		Claim: "complexity of implementation, from low to high: zookeeper, redis, the database (a ranking of words, " +
			"judged on the seed's own text)",
		ClaimZh: "实现的复杂性，从低到高：zookeeper、redis、数据库（文字上的排序，依据参考文章自己的文字判定）",
		Verdict: ContradictsItself,
	}
	c.seedBeside("000", "「从实现的复杂性角度(从低到高)Zookeeper > Redis > 数据库」", "「从理解的难易程度角度(从低到高)数据库 > Redis > Zookeeper」")
	c.measured(Text{"not a figure. Read by its heading (from low to high), the database is the most complex to implement, " +
		"while the line above it, in the same order, makes the database the easiest to understand and ZooKeeper the " +
		"hardest, and seed 000's own list of the database lock's merits opens with 「简单,使用方便」; read by its " +
		"sign (>, more), ZooKeeper is the most complex, which contradicts the heading. Either way it contradicts itself.",
		"不是测量数据，而是文字。按标题（从低到高）读，数据库实现起来最复杂；可它上面一行按同样的顺序，" +
			"说数据库最容易理解、ZooKeeper 最难；参考文章 000 自己列出的数据库锁优点也以「简单,使用方便」开头。" +
			"按符号（>，更多）读，ZooKeeper 最复杂，这又与标题矛盾。怎么读都自相矛盾。"})
	return c
}

// missing names what a claim needs and sp lacks (strategies by name, or
// aDBLock.En for any database lock), sorted by the English.
func missing(sp map[string]Spread, need ...string) Text {
	var out []Text
	for _, n := range need {
		if n == aDBLock.En {
			if names, _ := dbLocks(sp); len(names) == 0 {
				last := len(DBLocks) - 1
				out = append(out, Text{n + " (" + strings.Join(DBLocks, " or ") + ")",
					aDBLock.Zh + "（" + strings.Join(DBLocks[:last], "、") + " 或 " + DBLocks[last] + "）"})
			}
			continue
		}
		if _, ok := sp[n]; !ok {
			out = append(out, Text{n, n})
		}
	}
	slices.SortFunc(out, func(a, b Text) int { return strings.Compare(a.En, b.En) })
	return join(out, ", ", "、")
}
