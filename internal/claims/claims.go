// Package claims judges the seeds' performance claims on figures measured
// on this machine over repeated runs: locked sections (or orders) per
// second per strategy, the Redis commands each lock sends per acquisition,
// one lock client (redsync) on one Redis master against three, and the
// database's own transactions per second, each run of them side by side
// under the same conditions. A comparison decides only when the compared
// figures' ranges (min-max over the runs) do not overlap; inside the noise
// the answer is "inconclusive". The claims benchmark (make bench) and the
// dashboard's comparison view (GET /api/claims) both print them; the runs
// behind the view count orders only, so the claims that need the other
// figures say there that make bench measures them.
package claims

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// A Claim is one claim of the seeds and its verdict. Every text the
// dashboard shows comes in English and in simplified Chinese (the _zh
// twin, built with the English from the same figures); the seeds' own
// words (in 「」) stay verbatim in both. The verdict's label in each
// language is the dashboard's (claims-view.js).
type Claim struct {
	Seed       string `json:"seed"`        // the seed and its own sentence
	SeedZh     string `json:"seed_zh"`     // the same in Chinese, the sentence verbatim
	Claim      string `json:"claim"`       // what is checked, in our words
	ClaimZh    string `json:"claim_zh"`    // the same in Chinese
	Measured   string `json:"measured"`    // the figures it was judged on (median, min-max, runs), with their conditions, and why when undecided
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

// judged sets the verdict t folds to and the figures it was judged on;
// an undecided verdict says that the ranges overlapped.
func (c *Claim) judged(t tally, figs Text) {
	c.Verdict = t.verdict()
	if c.Verdict == Inconclusive {
		figs = figs.then(insideNoise)
	}
	c.measured(figs)
}

// insideNoise is why a comparison did not decide.
var insideNoise = Text{
	fmt.Sprintf("inconclusive: the compared ranges overlap, or a figure has fewer than %d runs", MinRuns),
	fmt.Sprintf("无法判定：比较的范围有重叠，或某个数据不足 %d 次压测", MinRuns)}

// The verdicts.
const (
	Holds        = "holds"
	DoesNotHold  = "does not hold"
	Inconclusive = "inconclusive" // the compared ranges overlap, too few runs, or the figures cannot tell (the claim says why)
	NotMeasured  = "not measured"
	// DifferentAxes: two rankings of words, on different axes, which the
	// reader may take for a contradiction; judged on the seed's own text.
	DifferentAxes = "different axes"
)

// DBLocks are the database strategies the claims compare. db-optimistic
// takes no lock (a CAS write with retries): a run of orders measures it, the
// lock benchmark cannot, and the claims say so when it is missing.
var DBLocks = []string{"db-pessimistic", "db-lock-table", "db-optimistic"}

// PollingLocks are the Redis locks whose waiters poll: SET NX (or SETNX,
// GETSET) again after a sleep of 0.5-30 ms (a step from 1 ms doubling to 20 ms, jittered to 0.5-1.5 times)
// (internal/lockstrategy/redislock/pollwait.go).
var PollingLocks = []string{"redis-no-owner", "redis-setnx-expire", "redis-getset"}

// ToldLocks are the Redis locks whose waiters wait to be told the lock is
// free: redis's FIFO hand-over (BLPOP on a list its release pushes to) and
// redisson's pub/sub channel (its unlock publishes).
var ToldLocks = []string{"redis", "redisson"}

// A RedsyncCase is one measurement of the same lock client (redsync) and
// wait on a number of Redis masters, at a number of contenders on one key.
type RedsyncCase struct{ Masters, Contenders int }

// Figures is what the claims are judged on.
type Figures struct {
	// Conditions says how PerSecond was measured (said in every Measured);
	// ConditionsZh the same in Chinese (in every MeasuredZh). Build both
	// with RunConditions, BenchConditions or NoRunConditions; an empty
	// ConditionsZh falls back to Conditions.
	Conditions, ConditionsZh string
	// PerSecond: strategy -> its figure per second in each run.
	PerSecond map[string][]float64
	// Commands: strategy -> the Redis commands its client sent per
	// acquisition (lock and unlock) in each run, counted in the runs of
	// PerSecond; CommandsConditions says how (CommandsConditions builds
	// it). The shop's runs do not count them.
	Commands           map[string][]float64
	CommandsConditions Text
	// Redsync: the same client (redsync) with the same wait on 1 Redis
	// master and on 3, acquisitions (lock and unlock) per second in each
	// run; RedsyncCommands the Redis commands per acquisition in the same
	// runs; RedsyncConditions says how (RedsyncConditions builds it).
	Redsync, RedsyncCommands map[RedsyncCase][]float64
	RedsyncConditions        Text
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

// spreads are the spreads of each name's runs, runs of 0 left out (a run
// that measured nothing).
func spreads[K comparable](runs map[K][]float64) map[K]Spread {
	sp := map[K]Spread{}
	for k, rs := range runs {
		var pos []float64
		for _, v := range rs {
			if v > 0 {
				pos = append(pos, v)
			}
		}
		if len(pos) > 0 {
			sp[k] = SpreadOf(pos)
		}
	}
	return sp
}

// Judge judges every claim on f.
func Judge(f Figures) []Claim {
	sp := spreads(f.PerSecond)
	cond := orEn(f.Conditions, f.ConditionsZh)
	return []Claim{ranking(sp, cond), ceiling(sp, cond), dbTPS(f), redlockCost(f),
		polling(f), complexity()}
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

// isDBLock says whether a strategy locks (or writes through) the database:
// its name starts with "db-".
func isDBLock(name string) bool { return strings.HasPrefix(name, "db-") }

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
	c.judged(t, figures(cond, named("redis", redis), named("zookeeper", zk), dbText))
	return c
}

// withoutDBLock is the measured strategy that takes no database lock
// (its name does not start with "db-") with the highest minimum: the
// yardstick of what the shop, or the benchmark, can do at all.
func withoutDBLock(sp map[string]Spread) (string, Spread, bool) {
	best := ""
	for _, n := range slices.Sorted(maps.Keys(sp)) {
		if !isDBLock(n) && (best == "" || sp[n].Min > sp[best].Min) {
			best = n
		}
	}
	return best, sp[best], best != ""
}

// ceiling judges seed 004's 1k ceiling. Under 1,000 says something of the
// database lock only where something else passes 1,000 in the same runs:
// one replica of the shop sells about 1,000-1,300 orders per second
// whatever its lock, and a ceiling of the shop (or of the benchmark) would
// keep every database lock under 1,000 too.
func ceiling(sp map[string]Spread, cond Text) Claim {
	c := Claim{
		Claim: "every database lock stays under 1,000 per second, in every run, while a strategy that takes no " +
			"database lock passes 1,000 in the same runs (else the ceiling is the shop's or the benchmark's)",
		ClaimZh: "每种数据库锁在每次压测中都低于每秒 1,000 次，而同一批压测中不加数据库锁的策略超过 1,000 次" +
			"（否则这个上限属于商店或基准测试本身）"}
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
	ref, refSp, ok := withoutDBLock(sp)
	parts := []Text{dbText}
	if ok {
		r := refSp.Text()
		parts = append(parts, Text{ref + " (takes no database lock) " + r.En, ref + "（不加数据库锁）" + r.Zh})
	}
	figs := figures(cond, parts...)
	switch {
	case t.fail:
		// A database lock past 1,000 in every run refutes it, whatever
		// the rest did.
		c.judged(t, figs)
	case !ok:
		c.Verdict = Inconclusive
		c.measured(figs.then(Text{
			"inconclusive: no strategy without a database lock in these runs shows that they can pass 1,000 " +
				"(a ceiling of the shop or of the benchmark would keep every lock under it)",
			"无法判定：这些压测里没有不加数据库锁的策略来说明它们能超过 1,000（商店或基准测试自身的上限也会让每种锁都低于它）"}))
	case CompareBound(refSp, 1000) != Above:
		c.Verdict = Inconclusive
		c.measured(figs.then(Text{
			"inconclusive: even " + ref + ", which takes no database lock, does not pass 1,000 in every run: " +
				"the ceiling is the shop's (or the benchmark's), not the database lock's",
			"无法判定：连不加数据库锁的 " + ref + " 也没有在每次压测中都超过 1,000：这个上限属于商店（或基准测试），不属于数据库锁"}))
	default:
		c.judged(t, figs)
	}
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
	c.judged(t, figures(orEn(f.DBTPSConditions, f.DBTPSConditionsZh), parts...))
	return c
}

// contenders says how many contenders a case had: "uncontended (1
// contender)", "64 contenders".
func contenders(n int) Text {
	if n == 1 {
		return Text{"uncontended (1 contender)", "无竞争（1 个竞争者）"}
	}
	return Text{fmt.Sprintf("%d contenders", n), fmt.Sprintf("%d 个竞争者", n)}
}

// masters is "1 master", "3 masters".
func masters(n int) Text {
	if n == 1 {
		return Text{"1 master", "1 个主节点"}
	}
	return Text{fmt.Sprintf("%d masters", n), fmt.Sprintf("%d 个主节点", n)}
}

// redlockCost judges seed 002's RedLock cost on the same client and wait
// on one master and on three: comparing the redlock strategy with redis
// would compare their waits too (redlock's waiters retry every 5-20 ms,
// redis's are handed the lock in turn).
func redlockCost(f Figures) Claim {
	c := Claim{
		Claim: "RedLock costs more and performs worse than a lock on one Redis: the same client (redsync) with the same wait " +
			"on 3 independent masters sends more Redis commands per acquisition and completes fewer acquisitions " +
			"(lock and unlock) per second than on 1 master, uncontended and contended",
		ClaimZh: "RedLock 比单个 Redis 上的锁成本更高、性能更差：同一个客户端（redsync）、同一种等待方式，" +
			"在 3 个独立主节点上比在 1 个主节点上每次加锁发出更多 Redis 命令，每秒完成的加锁（加锁并解锁）更少，无竞争和有竞争时都是如此"}
	c.seed("002", "「Redlock 成本高,性能也比较差」")
	if len(f.Redsync) == 0 {
		c.Verdict = NotMeasured
		c.measured(Text{"not in these figures: comparing redlock with redis would compare their waits too (redlock's waiters " +
			"retry every 5-20 ms, redis's are handed the lock in turn); make bench (BenchmarkClaims) measures the same " +
			"client and wait (redsync) on 1 master and on 3",
			"这些数据里没有：拿 redlock 和 redis 比，比的还有等待方式（redlock 的等待者每 5-20 毫秒重试一次，redis 的等待者按顺序接手锁）；" +
				"由 make bench（BenchmarkClaims）用同一个客户端、同一种等待方式（redsync）分别在 1 个和 3 个主节点上测量"})
		return c
	}
	rate, cmds := spreads(f.Redsync), spreads(f.RedsyncCommands)
	var (
		t     tally
		parts []Text
	)
	for _, n := range slices.Sorted(maps.Keys(contenderCounts(rate))) {
		one, okOne := rate[RedsyncCase{1, n}]
		three, okThree := rate[RedsyncCase{3, n}]
		if !okOne || !okThree {
			continue
		}
		t.want(Compare(three, one), Below)
		c1, ok1 := cmds[RedsyncCase{1, n}]
		c3, ok3 := cmds[RedsyncCase{3, n}]
		if ok1 && ok3 {
			t.want(Compare(c3, c1), Above)
		}
		// "1 master 2000/s (…) with 2.0 commands (…) per acquisition".
		side := func(m int, rate Spread, cmds Spread, counted bool) Text {
			ms, r := masters(m), rate.Text()
			t := Text{ms.En + " " + r.En, ms.Zh + " " + r.Zh}
			if counted {
				k := cmds.Commands()
				t.En += " with " + k.En + " per acquisition"
				t.Zh += "、每次加锁 " + k.Zh
			}
			return t
		}
		cn, s1, s3 := contenders(n), side(1, one, c1, ok1 && ok3), side(3, three, c3, ok1 && ok3)
		parts = append(parts, Text{cn.En + ": " + s1.En + ", " + s3.En, cn.Zh + "：" + s1.Zh + "，" + s3.Zh})
	}
	if len(parts) == 0 {
		c.Verdict = NotMeasured
		c.measured(lacks(f.RedsyncConditions, Text{"1 master and 3 masters at the same contenders", "同样竞争者数下的 1 个和 3 个主节点"}))
		return c
	}
	cases := join(parts, "; ", "；")
	c.judged(t, Text{f.RedsyncConditions.En + ": " + cases.En, f.RedsyncConditions.Zh + "：" + cases.Zh})
	return c
}

// contenderCounts are the contender counts of the cases measured.
func contenderCounts(m map[RedsyncCase]Spread) map[int]bool {
	out := map[int]bool{}
	for k := range m {
		out[k.Contenders] = true
	}
	return out
}

// polling judges seed 003's polling claim as the seed says it: polling
// costs (比较消耗性能), in Redis commands per acquisition, against a lock
// whose waiters are told (seed 003 says it of ZooKeeper's listener:
// 性能消耗较小). Throughput is not what it says.
func polling(f Figures) Claim {
	c := Claim{
		Claim: "waiting by polling costs Redis more: a Redis lock whose waiters keep trying (" + strings.Join(PollingLocks, ", ") +
			": SET NX again after a sleep of 0.5-30 ms) sends more Redis commands per acquisition than one whose waiters " +
			"are told the lock is free (redis: a FIFO hand-over; redisson: pub/sub), in the same runs",
		ClaimZh: "轮询等待更消耗 Redis：等待者不断重试的 Redis 锁（" + strings.Join(PollingLocks, "、") +
			"：睡 0.5-30 毫秒后再次 SET NX）每次加锁发出的 Redis 命令，比等待者等通知的锁（redis：按 FIFO 顺序交接；redisson：pub/sub）更多，在同一批压测中比较"}
	c.Seed = "seed 003: 「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」, and of ZooKeeper's listener: 「不用一直輪詢,性能消耗較小」"
	c.SeedZh = "参考文章 003：「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」，又说 ZooKeeper 的监听器：「不用一直輪詢,性能消耗較小」"
	if len(f.Commands) == 0 {
		c.Verdict = NotMeasured
		c.measured(Text{"not in these figures: they count orders or locked sections, not Redis commands; make bench " +
			"(BenchmarkClaims) counts each lock's Redis commands per acquisition, and the polling-vs-subscribe lesson " +
			"each lock's own Redis commands per acquisition during one herd of buyers (and what the node ran in all, and its CPU)",
			"这些数据里没有：它们只统计订单或临界区，不统计 Redis 命令；由 make bench（BenchmarkClaims）统计每种锁每次加锁的 Redis 命令，" +
				"polling-vs-subscribe 课则测一群买家下单期间每种锁每次加锁自己发出的 Redis 命令（以及节点执行的命令总数和 CPU）"})
		return c
	}
	cmds := spreads(f.Commands)
	cond := f.CommandsConditions
	var polls, told []string
	for _, n := range PollingLocks {
		if _, ok := cmds[n]; ok {
			polls = append(polls, n)
		}
	}
	for _, n := range ToldLocks {
		if _, ok := cmds[n]; ok {
			told = append(told, n)
		}
	}
	if len(polls) == 0 || len(told) == 0 {
		c.Verdict = NotMeasured
		var need []Text
		if len(polls) == 0 {
			need = append(need, Text{"a polling lock (" + strings.Join(PollingLocks, " or ") + ")",
				"轮询的锁（" + strings.Join(PollingLocks, "、") + "）"})
		}
		if len(told) == 0 {
			need = append(need, Text{"a lock whose waiters are told (" + strings.Join(ToldLocks, " or ") + ")",
				"等通知的锁（" + strings.Join(ToldLocks, "、") + "）"})
		}
		c.measured(lacks(cond, join(need, ", ", "、")))
		return c
	}
	var (
		t     tally
		parts []Text
	)
	for _, p := range polls {
		for _, n := range told {
			t.want(Compare(cmds[p], cmds[n]), Above)
		}
	}
	for _, n := range append(polls, told...) {
		k := cmds[n].Commands()
		parts = append(parts, Text{n + " " + k.En, n + " " + k.Zh})
	}
	c.judged(t, figures(cond, parts...))
	return c
}

// complexity is seed 000's ranking by complexity of implementation beside
// its ranking by ease of understanding: words, not a figure. The two rank
// on different axes, and read the same way they agree with the seed's own
// text.
func complexity() Claim {
	c := Claim{
		Claim: "complexity of implementation, from low to high: zookeeper, redis, the database; beside ease of understanding, " +
			"from low to high difficulty: the database, redis, zookeeper (rankings of words, judged on the seed's own text)",
		ClaimZh: "实现的复杂性，从低到高：zookeeper、redis、数据库；与之并列的理解难度，从低到高：数据库、redis、zookeeper" +
			"（文字上的排序，依据参考文章自己的文字判定）",
		Verdict: DifferentAxes,
	}
	c.seedBeside("000", "「从实现的复杂性角度(从低到高)Zookeeper > Redis > 数据库」", "「从理解的难易程度角度(从低到高)数据库 > Redis > Zookeeper」")
	c.measured(Text{"not a figure, and not a contradiction: two rankings on different axes. Seed 000 ranks the three on four axes, " +
		"performance, ease of understanding, complexity of implementation and reliability, each line in the order its heading " +
		"names, with > between the places. The database is the easiest to understand and the most complex to implement, " +
		"ZooKeeper the other way round, and the seed's own text says why: its database lock is a hand-written lock " +
		"table with a status, a lock flag and a timeout, while seed 000 says of ZooKeeper 「有封装较好的框架,如Curator」. " +
		"Not measured here.",
		"不是测量数据，也不矛盾：这是两个不同维度上的排序。参考文章 000 从四个维度给三者排序：性能、理解难易、实现复杂性、可靠性，" +
			"每一行都按标题所说的顺序排列，名次之间用 > 连接。数据库最容易理解、实现起来却最复杂，ZooKeeper 正好相反，" +
			"参考文章 000 自己的文字也说明了原因：它的数据库锁是一张手写的锁表，带状态、锁标志和超时，而说到 ZooKeeper 时它说「有封装较好的框架,如Curator」。" +
			"本实验不测这一项。"})
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
	slices.SortFunc(out, func(a, b Text) int { return cmp.Compare(a.En, b.En) })
	return join(out, ", ", "、")
}
