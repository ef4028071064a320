package claims

import (
	"strings"
	"testing"
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
		{"redis and zookeeper inside each other's noise", map[string][]float64{"redis": around(810), "zookeeper": around(800),
			"db-lock-table": around(200)}, Inconclusive, Holds},
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

func TestRedlockAndPolling(t *testing.T) {
	cs := Judge(Figures{PerSecond: map[string][]float64{"redis": around(3000), "redlock": around(900)}})
	if c := byClaim(t, cs, "seed 002"); c.Verdict != Holds {
		t.Errorf("redlock well below redis: %+v", c)
	}
	if c := byClaim(t, cs, "seed 003"); c.Verdict != NotMeasured || !strings.Contains(c.Measured, "polling-vs-subscribe") {
		t.Errorf("no polling variant: %+v", c)
	}
	cs = Judge(Figures{PerSecond: map[string][]float64{"redis": around(3000), "redlock": around(3050), "redis-poll": around(3000)}})
	if c := byClaim(t, cs, "seed 002"); c.Verdict != Inconclusive {
		t.Errorf("redlock inside redis's noise: %+v", c)
	}
	if c := byClaim(t, cs, "seed 003"); c.Verdict != Inconclusive || !strings.Contains(c.Measured, "redis-poll") {
		t.Errorf("polling inside redis's noise: %+v", c)
	}
}

func TestComplexityRankingContradictsItself(t *testing.T) {
	c := byClaim(t, Judge(Figures{}), "seed 000: 「从实现")
	if c.Verdict != ContradictsItself {
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
