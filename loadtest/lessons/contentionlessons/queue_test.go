package contentionlessons

import (
	"slices"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The lesson passes only when always lost nothing of entries still unread
// after the restart, none lost something, nothing stayed pending and the
// repair left no drift.
func TestJudgeDurability(t *testing.T) {
	good := []durabilityRound{
		{Mode: shopapi.DurabilityNone, Accepted: 30, Confirmed: 4, Lost: 26, DriftBefore: 3},
		{Mode: shopapi.DurabilityEverysec, Accepted: 30, Confirmed: 30},
		{Mode: shopapi.DurabilityAlways, Accepted: 30, Confirmed: 30, UndeliveredAtRestart: 20, UnreadAfterRestart: 20},
	}
	if p := judgeDurability(good); len(p) != 0 {
		t.Errorf("good rounds: %v", p)
	}
	bad := slices.Clone(good)
	bad[2].Lost, bad[2].Confirmed = 2, 28
	if p := strings.Join(judgeDurability(bad), "; "); !strings.Contains(p, "LOST 2 ACCEPTED ORDERS WITH appendfsync always") {
		t.Errorf("always lost 2: %q", p)
	}
	for _, unread := range []int64{0, -1} { // read before the restart; not known
		bad = slices.Clone(good)
		bad[2].UnreadAfterRestart = unread
		if p := strings.Join(judgeDurability(bad), "; "); !strings.Contains(p, "nothing was at risk") {
			t.Errorf("always with %d unread at the restart: %q", unread, p)
		}
	}
	bad = slices.Clone(good)
	bad[0].Lost, bad[0].Confirmed = 0, 30
	if p := strings.Join(judgeDurability(bad), "; "); !strings.Contains(p, "none lost nothing") {
		t.Errorf("none lost nothing: %q", p)
	}
	bad = slices.Clone(good)
	bad[1].Pending, bad[1].DriftAfter = 1, 1
	if p := judgeDurability(bad); len(p) != 2 {
		t.Errorf("pending and drift: %v", p)
	}
	if p := judgeDurability([]durabilityRound{{Mode: shopapi.DurabilityAlways, UnreadAfterRestart: 1}}); len(p) != 1 {
		t.Errorf("no 202: %v", p)
	}
}

// The unread entries are the group's lag, or where Redis cannot tell it
// (-1 after an AOF reload) the entries not yet delivered: length less
// pending.
func TestUnreadOf(t *testing.T) {
	for _, c := range []struct{ lag, length, pending, want int64 }{
		{16, 30, 14, 16},
		{0, 30, 30, 0},
		{-1, 30, 0, 30},
		{-1, 30, 12, 18},
		{-1, 0, 0, 0},
		{-1, 5, 8, 0},
	} {
		if got := unreadOf(c.lag, c.length, c.pending); got != c.want {
			t.Errorf("unreadOf(lag %d, length %d, pending %d) = %d, want %d", c.lag, c.length, c.pending, got, c.want)
		}
	}
}
