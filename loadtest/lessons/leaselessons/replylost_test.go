package leaselessons

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The verdict of acquire-reply-lost passes only when the reply was seen
// dropped on both sides (the hook's count) and each lock met it its way:
// redisson's buyer-1 failed on the lost reply and its orphaned lock kept
// buyer-2 out for a good part of the TTL; redis's buyer-1 bought within the
// TTL (its own id found, not its own lock waited out). Each broken
// condition fails it, naming why.
func TestAcquireReplyLostHoldsOnlyOnADroppedReply(t *testing.T) {
	const ttl = 3 * time.Second
	gaveUp := replySide{strategy: "redisson", ttl: ttl, dropped: 1, a: "backend_down", b: shopapi.KindOrder,
		aTook: 20 * time.Millisecond, bWaited: 2900 * time.Millisecond}
	checked := replySide{strategy: "redis", ttl: ttl, dropped: 1, a: shopapi.KindOrder, b: shopapi.KindOrder,
		aTook: 30 * time.Millisecond, bWaited: 10 * time.Millisecond}
	if ok, why := acquireReplyLostHolds(gaveUp, checked); !ok {
		t.Fatalf("the lost reply's evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name            string
		gaveUp, checked func(*replySide)
		why             string
	}{
		{"no reply dropped on redisson's side", func(s *replySide) { s.dropped = 0 }, nil, "redisson: 0 replies dropped"},
		{"no reply dropped on redis's side (buyer-1 simply bought)", nil, func(s *replySide) { s.dropped = 0 }, "redis: 0 replies dropped"},
		{"buyer-1 failed otherwise", func(s *replySide) { s.a = "lock_timeout" }, nil, "not backend_down"},
		{"buyer-1 bought on redisson", func(s *replySide) { s.a = shopapi.KindOrder }, nil, "not backend_down"},
		{"buyer-2 refused on redisson", func(s *replySide) { s.b = "lock_timeout" }, nil, "redisson: buyer-2 answered"},
		{"no orphaned lock kept buyer-2 out", func(s *replySide) { s.bWaited = 40 * time.Millisecond }, nil, "no orphaned lock"},
		{"redis's buyer-1 failed", nil, func(s *replySide) { s.a = "backend_down" }, "redis: buyer-1 answered"},
		{"redis's buyer-1 waited its own lock out", nil, func(s *replySide) { s.aTook = 3100 * time.Millisecond }, "waited its own lock out"},
		{"redis's buyer-2 refused", nil, func(s *replySide) { s.b = "lock_timeout" }, "redis: buyer-2 answered"},
		{"an overlap on redisson's side", func(s *replySide) { s.view.Violations = 1 }, nil, "redisson oversold"},
		{"a lost update on redis's side", nil, func(s *replySide) { s.view.LostUpdates = 1 }, "redis oversold"},
	} {
		g, c := gaveUp, checked
		if tc.gaveUp != nil {
			tc.gaveUp(&g)
		}
		if tc.checked != nil {
			tc.checked(&c)
		}
		ok, why := acquireReplyLostHolds(g, c)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}
