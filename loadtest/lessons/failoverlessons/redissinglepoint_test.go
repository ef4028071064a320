package failoverlessons

import (
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of redis-single-point passes only when the one node stopped
// its sale and RedLock's quorum did not: each broken condition fails it,
// naming why.
func TestRedisSinglePointHoldsOnlyWhenOneNodeStopsItsSale(t *testing.T) {
	single := singlePointSide{strategy: "redis", sent: map[string]int{"lock_lost": 2}, after: map[string]int{shopapi.KindOrder: 8}}
	quorum := singlePointSide{strategy: "redlock", sent: map[string]int{shopapi.KindOrder: 5}, sold: 5, after: map[string]int{shopapi.KindOrder: 8}}
	if ok, why := redisSinglePointHolds(single, quorum); !ok {
		t.Fatalf("the single point's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name          string
		single, quorm func(*singlePointSide)
		why           string
	}{
		{"a sale on the frozen node", func(s *singlePointSide) { s.sold = 1 }, nil, "redis sold 1 inside"},
		{"no order inside the freeze", func(s *singlePointSide) { s.sent = map[string]int{} }, nil, "no order was sent"},
		{"redlock stopped too", nil, func(s *singlePointSide) { s.sold = 0 }, "redlock sold nothing"},
		{"no order after the thaw", func(s *singlePointSide) { s.after = map[string]int{"backend_down": 8} }, nil, "thawed"},
		{"a lost update", nil, func(s *singlePointSide) { s.view.LostUpdates = 1 }, "redlock broke"},
	} {
		s, q := single, quorum
		if tc.single != nil {
			tc.single(&s)
		}
		if tc.quorm != nil {
			tc.quorm(&q)
		}
		ok, why := redisSinglePointHolds(s, q)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
