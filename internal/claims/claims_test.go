package claims

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// five runs around m, spread ±5%.
func around(m float64) []float64 { return []float64{m * 0.95, m * 0.98, m, m * 1.02, m * 1.05} }

func byClaim(t *testing.T, cs []Claim, prefix string) Claim {
	t.Helper()
	for _, c := range cs {
		if strings.HasPrefix(c.Seed, prefix) {
			return c
		}
	}
	t.Fatalf("no claim %q in %+v", prefix, cs)
	return Claim{}
}

func TestSpreadIsMedianAndRange(t *testing.T) {
	s := SpreadOf([]float64{5, 1, 3, 100})
	if s.N != 4 || s.Median != 4 || s.Min != 1 || s.Max != 100 {
		t.Fatalf("%+v", s)
	}
	if got := SpreadOf([]float64{3, 1, 2}).String(); got != "2/s (1-3, 3 runs)" {
		t.Fatalf("%q", got)
	}
}

// Inside the spread nothing is decided; a gap wider than both ranges
// decides; too few runs decide nothing, whatever the gap.
func TestCompareDecidesOnlyOutsideTheNoise(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want Order
	}{
		{"a 1% gap inside the spread", around(1010), around(1000), Inside},
		{"a clear gap", around(2000), around(1000), Above},
		{"a clear gap the other way", around(500), around(1000), Below},
		{"touching ranges", []float64{10, 11, 12}, []float64{12, 13, 14}, Inside},
		{"one run each, far apart", []float64{5000}, []float64{10}, Inside},
	} {
		if got := Compare(SpreadOf(tc.a), SpreadOf(tc.b)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if CompareBound(SpreadOf(around(990)), 1000) != Inside || CompareBound(SpreadOf(around(800)), 1000) != Below {
		t.Error("a bound inside the range must not decide; one above it must")
	}
}

func TestRankingAndCeiling(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ps            map[string][]float64
		rank, ceiling string
	}{
		{"as the seed says", map[string][]float64{"redis": around(3000), "zookeeper": around(800),
			"db-pessimistic": around(500), "db-lock-table": around(200)}, Holds, Holds},
		{"zookeeper below a database lock", map[string][]float64{"redis": around(3000), "zookeeper": around(300),
			"db-pessimistic": around(500)}, DoesNotHold, Holds},
		// Nothing passes 1,000: under it says nothing of the database lock.
		{"redis and zookeeper inside each other's noise", map[string][]float64{"redis": around(810), "zookeeper": around(800),
			"db-lock-table": around(200)}, Inconclusive, Inconclusive},
		{"a database lock past 1k", map[string][]float64{"redis": around(3000), "zookeeper": around(2000),
			"db-optimistic": around(1500)}, Holds, DoesNotHold},
		{"a database lock at 1k, inside its noise", map[string][]float64{"redis": around(3000), "zookeeper": around(2000),
			"db-pessimistic": around(1000)}, Holds, Inconclusive},
		{"one run each", map[string][]float64{"redis": {3000}, "zookeeper": {800}, "db-pessimistic": {500}},
			Inconclusive, Inconclusive},
		{"no zookeeper", map[string][]float64{"redis": around(3000), "db-pessimistic": around(500)}, NotMeasured, Holds},
		{"no database lock", map[string][]float64{"redis": around(3000), "zookeeper": around(800)}, NotMeasured, NotMeasured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Judge(Figures{Conditions: "x", PerSecond: tc.ps})
			r, c := byClaim(t, cs, "seed 000: 「从性能"), byClaim(t, cs, "seed 004: 「因为")
			if r.Verdict != tc.rank || c.Verdict != tc.ceiling {
				t.Fatalf("ranking %q, ceiling %q; want %q, %q\n%+v\n%+v", r.Verdict, c.Verdict, tc.rank, tc.ceiling, r, c)
			}
		})
	}
}

// The 1k ceiling is the database lock's only where a strategy without one
// passes 1,000 in the same runs: one replica of the shop sells about
// 1,000-1,300 orders per second whatever its lock, and that ceiling would
// keep every database lock under 1,000 too. Then it is inconclusive, and
// says why; a database lock past 1,000 refutes it whatever the rest did.
func TestTheCeilingIsTheDatabaseLocksOnlyWhereSomethingElsePassesIt(t *testing.T) {
	for _, tc := range []struct {
		name string
		ps   map[string][]float64
		want string
		says string // in measured, and its Chinese in measured_zh
		zh   string
	}{
		{"the shop's ceiling: even redis-lua-stock stays near 1,000", map[string][]float64{"redis-lua-stock": around(1000),
			"redis": around(950), "db-pessimistic": around(800), "db-lock-table": around(300)}, Inconclusive,
			"even redis-lua-stock, which takes no database lock, does not pass 1,000 in every run: the ceiling is the shop's",
			"连不加数据库锁的 redis-lua-stock 也没有在每次压测中都超过 1,000"},
		{"the shop's ceiling: everything under 1,000", map[string][]float64{"redis": around(700), "db-pessimistic": around(400)},
			Inconclusive, "even redis, which takes no database lock", "连不加数据库锁的 redis"},
		{"nothing without a database lock", map[string][]float64{"db-pessimistic": around(400), "db-lock-table": around(200)},
			Inconclusive, "no strategy without a database lock in these runs", "没有不加数据库锁的策略"},
		{"redis-lua-stock passes 1,000, the database locks do not", map[string][]float64{"redis-lua-stock": around(2500),
			"redis": around(950), "db-pessimistic": around(800)}, Holds, "redis-lua-stock (takes no database lock) 2500/s",
			"redis-lua-stock（不加数据库锁）2500 次/秒"},
		{"a database lock past 1,000, nothing else measured", map[string][]float64{"db-optimistic": around(1500)},
			DoesNotHold, "db-optimistic 1500/s", "db-optimistic 1500 次/秒"},
	} {
		c := byClaim(t, Judge(Figures{Conditions: "run #3", ConditionsZh: "压测 #3", PerSecond: tc.ps}), "seed 004: 「因为")
		if c.Verdict != tc.want || !strings.Contains(c.Measured, tc.says) || !strings.Contains(c.MeasuredZh, tc.zh) {
			t.Errorf("%s: %q\n%s\n%s\nwant %q saying %q, %q", tc.name, c.Verdict, c.Measured, c.MeasuredZh, tc.want, tc.says, tc.zh)
		}
	}
}

func TestMeasuredSaysTheSpreadAndWhyDBOptimisticIsMissing(t *testing.T) {
	cs := Judge(Figures{Conditions: "64 contenders", PerSecond: map[string][]float64{
		"redis": {2900, 3000, 3100}, "zookeeper": around(800), "db-lock-table": around(200)}})
	r := byClaim(t, cs, "seed 000: 「从性能")
	for _, want := range []string{"64 contenders", "redis 3000/s (2900-3100, 3 runs)", "db-optimistic not in these runs"} {
		if !strings.Contains(r.Measured, want) {
			t.Errorf("%q lacks %q", r.Measured, want)
		}
	}
	m := byClaim(t, Judge(Figures{Conditions: "run #7", PerSecond: map[string][]float64{"redis": around(3000)}}), "seed 000: 「从性能")
	if !strings.HasPrefix(m.Measured, "run #7") || !strings.Contains(m.Measured, "zookeeper") || !strings.Contains(m.Measured, "a database lock") {
		t.Errorf("missing figures: %+v", m)
	}
}

func TestDatabaseTPS(t *testing.T) {
	for _, tc := range []struct {
		name string
		tps  map[int][]float64
		want string
	}{
		{"a few hundred", map[int][]float64{1: around(400), 16: around(700)}, Holds},
		{"thousands", map[int][]float64{1: around(400), 16: around(5000)}, DoesNotHold},
		{"at 1k, inside the noise", map[int][]float64{1: around(1000)}, Inconclusive},
		{"not measured", nil, NotMeasured},
	} {
		c := byClaim(t, Judge(Figures{DBTPS: tc.tps, DBTPSConditions: "flush 1"}), "seed 004: 「单实例")
		if c.Verdict != tc.want {
			t.Errorf("%s: %+v, want %q", tc.name, c, tc.want)
		}
	}
}

// rs is a redsync measurement: per second and commands per acquisition,
// at 1 and at 64 contenders, on 1 master and on 3.
type rs struct{ one1, three1, one64, three64 []float64 }

func (r rs) figures() (rate, cmds map[RedsyncCase][]float64) {
	rate = map[RedsyncCase][]float64{{1, 1}: r.one1, {3, 1}: r.three1, {1, 64}: r.one64, {3, 64}: r.three64}
	cmds = map[RedsyncCase][]float64{{1, 1}: around(2), {3, 1}: around(6), {1, 64}: around(9), {3, 64}: around(30)}
	return rate, cmds
}

// RedLock's cost is judged on the same client and wait on one master and
// on three, uncontended and contended; the redlock strategy against redis
// (a different wait) decides nothing: not measured, and why.
func TestRedlockCostComparesOneMasterWithThree(t *testing.T) {
	cond := RedsyncConditions(5*time.Millisecond, 20*time.Millisecond, 2*time.Second, 5)
	for _, tc := range []struct {
		name string
		r    rs
		want string
	}{
		{"three masters slower, uncontended and contended", rs{around(2000), around(900), around(1500), around(700)}, Holds},
		{"contended inside the noise", rs{around(2000), around(900), around(1000), around(1010)}, Inconclusive},
		{"three masters faster contended", rs{around(2000), around(900), around(500), around(1500)}, DoesNotHold},
	} {
		rate, cmds := tc.r.figures()
		c := byClaim(t, Judge(Figures{Redsync: rate, RedsyncCommands: cmds, RedsyncConditions: cond}), "seed 002")
		if c.Verdict != tc.want || !strings.Contains(c.Measured, "uncontended (1 contender): 1 master ") ||
			!strings.Contains(c.Measured, "; 64 contenders: 1 master ") || !strings.Contains(c.MeasuredZh, "1 个主节点 2000 次/秒（1900-2100，5 次压测）、每次加锁 2.0 条命令") {
			t.Errorf("%s: %q\n%s\n%s", tc.name, c.Verdict, c.Measured, c.MeasuredZh)
		}
	}
	c := byClaim(t, Judge(Figures{PerSecond: map[string][]float64{"redis": around(3000), "redlock": around(900)}}), "seed 002")
	if c.Verdict != NotMeasured || !strings.Contains(c.Measured, "would compare their waits too") ||
		!strings.Contains(c.MeasuredZh, "比的还有等待方式") {
		t.Errorf("redlock against redis: %+v", c)
	}
	c = byClaim(t, Judge(Figures{Redsync: map[RedsyncCase][]float64{{3, 64}: around(900)}, RedsyncConditions: cond}), "seed 002")
	if c.Verdict != NotMeasured || !strings.Contains(c.Measured, "missing 1 master and 3 masters") {
		t.Errorf("three masters alone: %+v", c)
	}
}

// The polling claim is what seed 003 says, that polling costs: Redis
// commands per acquisition of the polling variants (their real names)
// against redis and redisson, in the same runs. The runs' orders per
// second, whatever the strategies, do not measure it.
func TestPollingIsJudgedOnCommandsPerAcquisition(t *testing.T) {
	cond := CommandsConditions(64, 0, 5)
	for _, tc := range []struct {
		name string
		cmds map[string][]float64
		want string
	}{
		{"polling sends more", map[string][]float64{"redis-no-owner": around(40), "redis": around(5), "redisson": around(6)}, Holds},
		{"one polling variant inside redisson's noise", map[string][]float64{"redis-no-owner": around(40),
			"redis-getset": around(6.1), "redisson": around(6)}, Inconclusive},
		{"polling sends fewer", map[string][]float64{"redis-setnx-expire": around(3), "redis": around(5)}, DoesNotHold},
	} {
		c := byClaim(t, Judge(Figures{Commands: tc.cmds, CommandsConditions: cond}), "seed 003")
		if c.Verdict != tc.want || !strings.HasPrefix(c.Measured, cond.En+": ") || !strings.Contains(c.Measured, " commands (") {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
	for _, n := range PollingLocks {
		c := byClaim(t, Judge(Figures{Commands: map[string][]float64{n: around(40), "redis": around(5)}, CommandsConditions: cond}), "seed 003")
		if c.Verdict != Holds || !strings.Contains(c.Measured, n+" 40.0 commands") {
			t.Errorf("%s is a polling variant: %+v", n, c)
		}
	}
	c := byClaim(t, Judge(Figures{Commands: map[string][]float64{"redis": around(5)}, CommandsConditions: cond}), "seed 003")
	if c.Verdict != NotMeasured || !strings.Contains(c.Measured, "missing a polling lock (redis-no-owner or") {
		t.Errorf("no polling variant: %+v", c)
	}
	c = byClaim(t, Judge(Figures{PerSecond: map[string][]float64{"redis": around(3000), "redis-no-owner": around(900)}}), "seed 003")
	if c.Verdict != NotMeasured || !strings.Contains(c.Measured, "not Redis commands") || !strings.Contains(c.Measured, "polling-vs-subscribe") {
		t.Errorf("orders per second only: %+v", c)
	}
	if !strings.Contains(c.Claim, "costs Redis more") || !strings.Contains(c.Seed, "「不用一直輪詢,性能消耗較小」") {
		t.Errorf("the claim is not what the seed says: %+v", c)
	}
}

// Seed 000's complexity line and the line above it rank on different
// axes: not a contradiction, and not an error.
func TestComplexityRankingIsOnAnotherAxis(t *testing.T) {
	c := byClaim(t, Judge(Figures{}), "seed 000: 「从实现")
	if c.Verdict != DifferentAxes || !strings.Contains(c.Measured, "not a contradiction") || !strings.Contains(c.MeasuredZh, "也不矛盾") {
		t.Errorf("%+v", c)
	}
}

// The dashboard shows the check in the page's language: every claim has it
// in Chinese too.
func TestEveryClaimSaysItInChinese(t *testing.T) {
	for _, c := range Judge(Figures{}) {
		if c.ClaimZh == "" {
			t.Errorf("%s: no claim_zh", c.Seed)
		}
	}
}

// The rule for a Chinese text (seed_zh, claim_zh, measured_zh): it has a
// Chinese character, and once the technical names it keeps in Latin
// letters are taken out (techNames: the strategies, make bench,
// BenchmarkClaims, the lesson's name, Redis, ZooKeeper, MariaDB, SET NX
// and such; each counts as a break, not as a word) it has no run of 4 or
// more plain English words: a word is letters (an apostrophe inside), the
// words of a run are separated by spaces or commas only, so that
// "innodb_flush_log_at_trx_commit=2", "UPDATE ... SET" or "5686/s" never
// make one. The seeds' own words (in 「」) stay verbatim.
var (
	hanChar     = regexp.MustCompile(`\p{Han}`)
	englishRun  = regexp.MustCompile(`[A-Za-z][A-Za-z']*(?:[ ,]+[A-Za-z][A-Za-z']*){3,}`)
	seedQuote   = regexp.MustCompile(`「[^」]*」`)
	digitGroups = regexp.MustCompile(`\d+`)
	techNames   = []string{"make bench", "BenchmarkClaims", "polling-vs-subscribe", "redis-no-owner", "redis-setnx-expire",
		"redis-getset", "redis-lua-stock", "db-pessimistic", "db-lock-table", "db-optimistic", "redisson", "redlock", "redsync",
		"redis", "zookeeper", "RedLock", "Redis", "ZooKeeper", "MariaDB", "SET NX", "CAS", "CPU", "FIFO", "pub/sub"}
)

// chineseProblem says what breaks the rule above in zh, or "".
func chineseProblem(zh string) string {
	if zh == "" {
		return "empty"
	}
	if !hanChar.MatchString(zh) {
		return "no Chinese character"
	}
	rest := seedQuote.ReplaceAllString(zh, "·")
	for _, n := range techNames {
		rest = strings.ReplaceAll(rest, n, "·")
	}
	if m := englishRun.FindString(rest); m != "" {
		return fmt.Sprintf("English words in a row: %q", m)
	}
	return ""
}

// sortedNumbers are the digit groups of s, sorted: the same figures said
// in English and in Chinese have the same ones.
func sortedNumbers(s string) []string {
	n := digitGroups.FindAllString(s, -1)
	slices.Sort(n)
	return n
}

func TestTheRuleForAChineseTextCatchesEnglish(t *testing.T) {
	for _, bad := range []string{"", "redis 3000/s (2900-3100, 3 runs)",
		"这些数据里没有：not in these figures", "缺少 any of the database locks (db-pessimistic)"} {
		if chineseProblem(bad) == "" {
			t.Errorf("%q passes the rule", bad)
		}
	}
	for _, ok := range []string{"由 make bench（BenchmarkClaims）测量", "本机的 MariaDB，innodb_flush_log_at_trx_commit=2, log_bin=0，每轮 2s",
		"对比 redis-no-owner 的 SET NX 重试循环与 redisson、redis"} {
		if p := chineseProblem(ok); p != "" {
			t.Errorf("%q: %s", ok, p)
		}
	}
}

// Every claim the judge can say, down every branch that sets Measured
// (not measured, something missing, judged on figures), says it in Chinese
// too: measured_zh, seed_zh and claim_zh keep the rule above, measured_zh
// says the same figures as measured, and seed_zh quotes the seed verbatim.
func TestEveryBranchSaysItsFiguresInChinese(t *testing.T) {
	branches := claimBranches()
	for _, tc := range chineseCases() {
		cs := Judge(tc.f)
		if len(cs) != 6 {
			t.Fatalf("%s: %d claims", tc.name, len(cs))
		}
		for _, c := range cs {
			saysItInChinese(t, tc.name+", "+c.Seed, c)
			markBranch(branches, c)
		}
	}
	for b, seen := range branches {
		if !seen {
			t.Errorf("no case reaches %q", b)
		}
	}
}

// chineseCase is one set of figures TestEveryBranchSaysItsFiguresInChinese
// judges.
type chineseCase struct {
	name string
	f    Figures
}

// chineseCases are figures that, together, reach every branch that sets
// Measured.
func chineseCases() []chineseCase {
	bench, tpsCond := BenchConditions(64, 0, 5), DBTPSConditions("innodb_flush_log_at_trx_commit=2, log_bin=0", 2*time.Second, 5)
	cmdCond, rsCond := CommandsConditions(64, 0, 5), RedsyncConditions(5*time.Millisecond, 20*time.Millisecond, 2*time.Second, 5)
	runs := RunConditions(RunSettings{RunIDs: []uint64{6, 5, 4}, Buyers: 200, Concurrency: 50, WorkMS: 0, Replicas: 1, Stock: 100})
	open := RunConditions(RunSettings{RunIDs: []uint64{9}, Buyers: 200, Rate: 120, WorkMS: 5, Replicas: 3, Stock: 50})
	none := NoRunConditions()
	rate, cmds := rs{around(2000), around(900), around(1500), around(700)}.figures()
	return []chineseCase{
		{"nothing measured", Figures{Conditions: none.En, ConditionsZh: none.Zh}},
		{"everything measured, on runs", Figures{Conditions: runs.En, ConditionsZh: runs.Zh, PerSecond: map[string][]float64{
			"redis": around(3000), "zookeeper": around(800), "db-pessimistic": around(500), "db-lock-table": around(200),
			"db-optimistic": around(1500), "redlock": around(900), "redis-no-owner": around(2000)}}},
		{"make bench, db-optimistic not in it", Figures{Conditions: bench.En, ConditionsZh: bench.Zh, PerSecond: map[string][]float64{
			"redis": around(3000), "zookeeper": around(800), "db-pessimistic": {500}, "redis-no-owner": around(2000)},
			Commands: map[string][]float64{"redis": around(4), "redisson": around(5), "redis-no-owner": around(30)}, CommandsConditions: cmdCond,
			Redsync: rate, RedsyncCommands: cmds, RedsyncConditions: rsCond,
			DBTPS: map[int][]float64{1: around(400), 16: around(700)}, DBTPSConditions: tpsCond.En, DBTPSConditionsZh: tpsCond.Zh}},
		{"the shop's ceiling, a polling variant alone", Figures{Conditions: open.En, ConditionsZh: open.Zh, PerSecond: map[string][]float64{
			"redis-lua-stock": around(1000), "zookeeper": around(800), "db-pessimistic": around(700)},
			Commands: map[string][]float64{"redis-getset": around(30)}, CommandsConditions: cmdCond,
			Redsync: map[RedsyncCase][]float64{{3, 64}: around(700)}, RedsyncConditions: rsCond}},
		{"no strategy without a database lock, no polling variant", Figures{Conditions: open.En, ConditionsZh: open.Zh,
			PerSecond: map[string][]float64{"db-lock-table": around(200)},
			Commands:  map[string][]float64{"redisson": around(5)}, CommandsConditions: cmdCond}},
	}
}

// claimBranches is each branch that sets Measured, by what its English
// says, none reached yet.
func claimBranches() map[string]bool {
	return map[string]bool{
		"ranking: missing":                         false,
		"ranking: judged":                          false,
		"ranking: inside the noise":                false,
		"ceiling: missing a database lock":         false,
		"ceiling: judged":                          false,
		"ceiling: the shop's":                      false,
		"ceiling: nothing without a database lock": false,
		"database TPS: not in these figures":       false,
		"database TPS: judged":                     false,
		"redlock: not in these figures":            false,
		"redlock: missing one of the masters":      false,
		"redlock: judged":                          false,
		"polling: not in these figures":            false,
		"polling: missing":                         false,
		"polling: judged":                          false,
		"complexity: not a figure":                 false,
		"db-optimistic not in these runs (judged)": false,
	}
}

// saysItInChinese checks claim c's Chinese: seed_zh, claim_zh and
// measured_zh keep the rule, measured_zh and claim_zh say the same figures
// as their English, and seed_zh quotes the seed verbatim.
func saysItInChinese(t *testing.T, where string, c Claim) {
	t.Helper()
	for field, zh := range map[string]string{"seed_zh": c.SeedZh, "claim_zh": c.ClaimZh, "measured_zh": c.MeasuredZh} {
		if p := chineseProblem(zh); p != "" {
			t.Errorf("%s: %s %q: %s", where, field, zh, p)
		}
	}
	if got, want := sortedNumbers(c.MeasuredZh), sortedNumbers(c.Measured); !slices.Equal(got, want) {
		t.Errorf("%s: measured_zh says %v, measured %v\n%s\n%s", where, got, want, c.Measured, c.MeasuredZh)
	}
	if got, want := sortedNumbers(c.ClaimZh), sortedNumbers(c.Claim); !slices.Equal(got, want) {
		t.Errorf("%s: claim_zh says %v, claim %v\n%s\n%s", where, got, want, c.Claim, c.ClaimZh)
	}
	for _, q := range seedQuote.FindAllString(c.Seed, -1) {
		if !strings.Contains(c.SeedZh, q) {
			t.Errorf("%s: seed_zh %q lacks the seed's own %s", where, c.SeedZh, q)
		}
	}
}

// markBranch marks in branches the branch that set c's Measured.
func markBranch(branches map[string]bool, c Claim) {
	judged := c.Verdict != NotMeasured
	m := c.Measured
	switch {
	case strings.HasPrefix(c.Seed, "seed 000: 「从性能"):
		branches[map[bool]string{false: "ranking: missing", true: "ranking: judged"}[judged]] = true
		if judged && strings.Contains(m, "db-optimistic not in these runs") {
			branches["db-optimistic not in these runs (judged)"] = true
		}
		if strings.HasSuffix(m, "; inconclusive: the compared ranges overlap, or a figure has fewer than 3 runs") {
			branches["ranking: inside the noise"] = true
		}
	case strings.HasPrefix(c.Seed, "seed 004: 「因为"):
		switch {
		case !judged:
			branches["ceiling: missing a database lock"] = true
		case strings.Contains(m, "the ceiling is the shop's"):
			branches["ceiling: the shop's"] = true
		case strings.Contains(m, "no strategy without a database lock"):
			branches["ceiling: nothing without a database lock"] = true
		default:
			branches["ceiling: judged"] = true
		}
	case strings.HasPrefix(c.Seed, "seed 004: 「单实例"):
		branches[map[bool]string{false: "database TPS: not in these figures", true: "database TPS: judged"}[judged]] = true
	case strings.HasPrefix(c.Seed, "seed 002"):
		switch {
		case judged:
			branches["redlock: judged"] = true
		case strings.HasPrefix(m, "not in these figures"):
			branches["redlock: not in these figures"] = true
		case strings.Contains(m, ": missing 1 master and 3 masters"):
			branches["redlock: missing one of the masters"] = true
		}
	case strings.HasPrefix(c.Seed, "seed 003"):
		switch {
		case judged:
			branches["polling: judged"] = true
		case strings.Contains(m, ": missing "):
			branches["polling: missing"] = true
		case strings.HasPrefix(m, "not in these figures"):
			branches["polling: not in these figures"] = true
		}
	case strings.HasPrefix(c.Seed, "seed 000: 「从实现"):
		branches["complexity: not a figure"] = strings.HasPrefix(m, "not a figure")
	}
}

// The conditions are built once for both languages: the English is what
// the runs and make bench said before, the Chinese says the same figures;
// a caller that gives English only gets its English in measured_zh too.
func TestConditionsInBothLanguages(t *testing.T) {
	for _, tc := range []struct {
		got  Text
		want string
	}{
		{RunConditions(RunSettings{RunIDs: []uint64{6, 5}, Buyers: 200, Concurrency: 50, WorkMS: 0, Replicas: 1, Stock: 100}),
			"run #6, run #5 (same settings; median, min-max), orders/s per step: 200 buyers, 50 workers, work 0 ms, 1 replicas, stock 100"},
		{RunConditions(RunSettings{RunIDs: []uint64{9}, Buyers: 20, Rate: 12.4, WorkMS: 1500, Replicas: 2, Stock: 20}),
			"run #9 (same settings; median, min-max), orders/s per step: 20 buyers, 12 req/s offered, work 1500 ms, 2 replicas, stock 20"},
		{BenchConditions(64, 10*time.Millisecond, 5), "64 contenders, work 10ms, locked sections/s over 5 rounds (median, min-max)"},
		{DBTPSConditions("innodb_flush_log_at_trx_commit=2, log_bin=0", 2*time.Second, 5),
			"MariaDB on this machine, innodb_flush_log_at_trx_commit=2, log_bin=0, 2s per round, 5 rounds (median, min-max)"},
		{NoRunConditions(), "no finished run"},
	} {
		if tc.got.En != tc.want {
			t.Errorf("English %q, want %q", tc.got.En, tc.want)
		}
		if p := chineseProblem(tc.got.Zh); p != "" {
			t.Errorf("%q: %s", tc.got.Zh, p)
		}
		if got, want := sortedNumbers(tc.got.Zh), sortedNumbers(tc.got.En); !slices.Equal(got, want) {
			t.Errorf("%q says %v, %q %v", tc.got.Zh, got, tc.got.En, want)
		}
	}
	c := byClaim(t, Judge(Figures{Conditions: "run #7", PerSecond: map[string][]float64{"redis": around(3000)}}), "seed 000: 「从性能")
	if !strings.HasPrefix(c.MeasuredZh, "run #7：缺少") {
		t.Errorf("English-only conditions: %q", c.MeasuredZh)
	}
}
