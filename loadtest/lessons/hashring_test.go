package lessons

import (
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The ring change's verdict needs both witnesses unfenced (an overlap
// alone, or a lost update alone, is not the lesson) and, fenced, a refused
// write with nothing lost.
func TestRingChangeHoldsOnBothWitnesses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fencing bool
		got     shopapi.SaleView
		want    bool
	}{
		{"unfenced: overlaps and lost updates", false, shopapi.SaleView{Violations: 78, LostUpdates: 40}, true},
		{"unfenced: overlaps, nothing lost", false, shopapi.SaleView{Violations: 3}, false},
		{"unfenced: lost updates the detector missed", false, shopapi.SaleView{LostUpdates: 2}, false},
		{"fenced: refused, nothing lost", true, shopapi.SaleView{Violations: 3000, FencedWrites: 2990}, true},
		{"fenced: nothing refused", true, shopapi.SaleView{Violations: 3}, false},
		{"fenced: a lost update all the same", true, shopapi.SaleView{FencedWrites: 5, LostUpdates: 1}, false},
		{"fenced: oversold", true, shopapi.SaleView{FencedWrites: 5, Oversold: 1}, false},
	} {
		if got := ringChangeHolds(tc.fencing, tc.got); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
