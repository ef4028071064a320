package lessons

import (
	"slices"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The lesson passes only when always lost nothing, none lost something,
// nothing stayed pending and the repair left no drift.
func TestJudgeDurability(t *testing.T) {
	good := []durabilityRound{
		{Mode: shopapi.DurabilityNone, Accepted: 30, Confirmed: 4, Lost: 26, DriftBefore: 3},
		{Mode: shopapi.DurabilityEverysec, Accepted: 30, Confirmed: 30},
		{Mode: shopapi.DurabilityAlways, Accepted: 30, Confirmed: 30},
	}
	if p := judgeDurability(good); len(p) != 0 {
		t.Errorf("good rounds: %v", p)
	}
	bad := slices.Clone(good)
	bad[2].Lost, bad[2].Confirmed = 2, 28
	if p := strings.Join(judgeDurability(bad), "; "); !strings.Contains(p, "LOST 2 ACCEPTED ORDERS WITH appendfsync always") {
		t.Errorf("always lost 2: %q", p)
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
	if p := judgeDurability([]durabilityRound{{Mode: shopapi.DurabilityAlways}}); len(p) != 1 {
		t.Errorf("no 202: %v", p)
	}
}
