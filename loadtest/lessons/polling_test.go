package lessons

import (
	"strings"
	"testing"
)

// The verdict of polling-vs-subscribe passes only when polling is the
// dearest per acquisition and every side sold exactly: each broken
// condition fails it.
func TestPollingCostsMoreOnlyWhenItIsDearest(t *testing.T) {
	poll := waitSide{strategy: "redis-no-owner", orders: 48, commands: 960}
	sub := waitSide{strategy: "redisson", orders: 48, commands: 300}
	fifo := waitSide{strategy: "redis", orders: 48, commands: 250}
	if ok, why := pollingCostsMore(poll, sub, fifo); !ok {
		t.Fatalf("polling's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name   string
		change func(p, s, f *waitSide)
		why    string
	}{
		{"pub/sub as dear", func(p, s, f *waitSide) { s.commands = 960 }, "no dearer than redisson"},
		{"FIFO dearer", func(p, s, f *waitSide) { f.commands = 2000 }, "no dearer than redis"},
		{"nothing sold", func(p, s, f *waitSide) { p.orders = 0 }, "sold nothing"},
		{"an overlap", func(p, s, f *waitSide) { f.view.Violations = 1 }, "redis broke"},
	} {
		p, s, f := poll, sub, fifo
		tc.change(&p, &s, &f)
		ok, why := pollingCostsMore(p, s, f)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
