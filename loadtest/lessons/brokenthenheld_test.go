package lessons

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// BrokenThenHeld passes only when the broken strategy both let holders in
// together and lost an update (the prediction says both), with the mutex
// on two replicas' sections, and the fix broke nothing: each missing part
// fails it, naming why.
func TestBrokenThenHeldNeedsOverlapAndLostUpdate(t *testing.T) {
	broken := heldSide{strategy: "mutex", view: shopapi.SaleView{Sold: 40, Stock: 12, LostUpdates: 12, Violations: 30},
		pairs: overlapReplicas{across: 30}}
	fix := heldSide{strategy: "db-pessimistic", view: shopapi.SaleView{Sold: 40}}
	for _, across := range []bool{false, true} {
		if ok, why := brokenThenHeldVerdict(broken, fix, across); !ok {
			t.Fatalf("across %v: the evidence failed: %s", across, why)
		}
	}
	for _, tc := range []struct {
		name   string
		across bool
		edit   func(b, f *heldSide)
		why    string
	}{
		{"an oversell alone", false, func(b, _ *heldSide) { b.view.LostUpdates, b.view.Violations, b.view.Oversold = 0, 0, 3 }, "violations"},
		{"overlaps without a lost update", false, func(b, _ *heldSide) { b.view.LostUpdates = 0 }, "lost_updates"},
		{"a lost update without an overlap", false, func(b, _ *heldSide) { b.view.Violations = 0 }, "violations"},
		{"overlaps on one replica only", true, func(b, _ *heldSide) { b.pairs = overlapReplicas{within: 30} }, "two replicas"},
		{"timeline summarised", true, func(b, _ *heldSide) { b.pairs = overlapReplicas{summarised: true} }, "two replicas"},
		{"the fix overlapped", false, func(_, f *heldSide) { f.view.Violations = 1 }, "db-pessimistic broke"},
		{"the fix lost an update", true, func(_, f *heldSide) { f.view.LostUpdates = 1 }, "db-pessimistic broke"},
	} {
		b, f := broken, fix
		tc.edit(&b, &f)
		ok, why := brokenThenHeldVerdict(b, f, tc.across)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// The timeline's overlaps are placed by their sections' replicas; an
// overlap whose section is not listed counts in neither.
func TestOverlapPairsByReplica(t *testing.T) {
	var tl saleSections
	doc := `{"summarised":false,
		"sections":[{"id":1,"replica":"r1"},{"id":2,"replica":"r2"},{"id":3,"replica":"r1"},{"id":4,"replica":"r2"}],
		"overlaps":[{"a":1,"b":2},{"a":1,"b":3},{"a":4,"b":3},{"a":4,"b":9}]}`
	if err := json.Unmarshal([]byte(doc), &tl); err != nil {
		t.Fatal(err)
	}
	if got := tl.pairs(); got != (overlapReplicas{across: 2, within: 1}) {
		t.Errorf("pairs %+v, want 2 across, 1 within", got)
	}
}
