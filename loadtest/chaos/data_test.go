package chaos

import (
	"testing"

	"github.com/seckill-lab/seckill/internal/verdict"
)

// TestChaosDataVerdict: a configuration's summed figures get the shop's one
// verdict: a fenced overlap is overlapped_safe, not broken; a lost update
// is broken.
func TestChaosDataVerdict(t *testing.T) {
	cases := []struct {
		v    chaosVerdict
		kind string
	}{
		{chaosVerdict{Sold: 40}, verdict.Holds},
		{chaosVerdict{Sold: 40, Violations: 3, FencedWrites: 2}, verdict.OverlappedSafe},
		{chaosVerdict{Sold: 40, Violations: 3, LostUpdates: 1}, verdict.Broken},
		{chaosVerdict{Sold: 40, Duplicates: 1}, verdict.Broken},
	}
	for _, c := range cases {
		if got := c.v.data(); got.Kind != c.kind || got.ReasonEn == "" {
			t.Errorf("data of %+v = %+v, want %s with a reason", c.v, got, c.kind)
		}
		if got := dataWord(c.v.data().Kind); got == "" {
			t.Errorf("no word for %s", c.kind)
		}
	}
}
