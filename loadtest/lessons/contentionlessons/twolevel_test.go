package contentionlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// A local hand-off is a section whose token is 1 to MaxHandOffs above the
// one before it on the same replica: every Redis acquisition of
// redis-2level reserves MaxHandOffs+1 tokens, so two acquisitions are at
// least that far apart; close tokens on two replicas, or one token twice,
// are no hand-off.
func TestLocalHandOffsAreTokensWithinOneReservation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sections []tokenSection
		want     int
	}{
		{"a holding passed twice, then two Redis acquisitions, then once", []tokenSection{
			{"shop-1", 1000}, {"shop-1", 1001}, {"shop-1", 1002}, {"shop-2", 1009}, {"shop-2", 1018}, {"shop-1", 1027}, {"shop-1", 1028},
		}, 3},
		{"out of order", []tokenSection{{"shop-1", 1028}, {"shop-2", 1009}, {"shop-1", 1027}}, 1},
		{"every section from Redis", []tokenSection{{"shop-1", 1000}, {"shop-2", 1009}, {"shop-1", 1018}, {"shop-1", 5000}}, 0},
		{"close tokens on two replicas", []tokenSection{{"shop-1", 1000}, {"shop-2", 1003}}, 0},
		{"one token twice", []tokenSection{{"shop-1", 1000}, {"shop-1", 1000}}, 0},
		{"no token", []tokenSection{{"shop-1", 0}, {"shop-1", 0}}, 0},
		{"nothing", nil, 0},
	} {
		if got := localHandOffs(tc.sections); got != tc.want {
			t.Errorf("%s: %d hand-offs, want %d", tc.name, got, tc.want)
		}
	}
}

// two-level-handoff passes only when both sales are exact and redis-2level
// handed its lock off locally at least once: a redis-2level that went back
// to Redis for every section fails it.
func TestTwoLevelHandoffNeedsALocalHandOff(t *testing.T) {
	exact := shopapi.SaleView{Sold: 96}
	fifo := handoffSide{strategy: "redis", sections: 96, view: exact}
	two := handoffSide{strategy: "redis-2level", sections: 96, handOffs: 41, view: exact}
	if ok, why := twoLevelVerdict(fifo, two); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(f, t *handoffSide)
		why  string
	}{
		{"no hand-off", func(f, t *handoffSide) { t.handOffs = 0 }, "no local hand-off"},
		{"no section read", func(f, t *handoffSide) { t.sections, t.handOffs = 0, 0 }, "no local hand-off"},
		{"an overlap on redis", func(f, t *handoffSide) { f.view.Violations = 1 }, "redis broke"},
		{"a fenced write on redis-2level", func(f, t *handoffSide) { t.view.FencedWrites = 1 }, "redis-2level broke"},
		{"nothing sold", func(f, t *handoffSide) { t.view.Sold = 0 }, "redis-2level sold nothing"},
		{"stock drifted", func(f, t *handoffSide) { f.view.Stock = 1 }, "redis: stock 1"},
	} {
		f, tw := fifo, two
		tc.edit(&f, &tw)
		ok, why := twoLevelVerdict(f, tw)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
