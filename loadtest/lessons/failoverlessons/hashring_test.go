package failoverlessons

import (
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The ring change's verdict, on fake figures. Both ways it needs the two
// owners to have sold while the old one was out of the ring, the join seen
// while the buyers still bought, and orders served by the rejoined owner
// after it. Unfenced it needs both witnesses of two holders (an overlap
// alone, or a lost update alone, is not the lesson); fenced, the old
// owner's writes refused while it was out, and nothing lost.
func TestRingChangeHolds(t *testing.T) {
	unfenced := ringCase{
		LeaveOld: ringTally{Served: 40}, LeaveNew: ringTally{Served: 42}, Joined: true,
		JoinOld: ringTally{Served: 30}, JoinNew: ringTally{NotOwner: 30},
		Got: shopapi.SaleView{Violations: 78, LostUpdates: 40},
	}
	fenced := ringCase{Fencing: true,
		LeaveOld: ringTally{Served: 1, Fenced: 2800}, LeaveNew: ringTally{Served: 37}, Joined: true,
		JoinOld: ringTally{Served: 30}, JoinNew: ringTally{NotOwner: 30, Fenced: 2},
		Got: shopapi.SaleView{Violations: 3000, FencedWrites: 2802},
	}
	for _, tc := range []struct {
		name   string
		change func(*ringCase)
		base   ringCase
		want   bool
	}{
		{"unfenced: overlaps and lost updates, the owner sells again after the join", nil, unfenced, true},
		{"unfenced: overlaps, nothing lost", func(c *ringCase) { c.Got.LostUpdates = 0 }, unfenced, false},
		{"unfenced: lost updates the detector missed", func(c *ringCase) { c.Got.Violations = 0 }, unfenced, false},
		{"unfenced: the new owner sold nothing while the old one was out", func(c *ringCase) { c.LeaveNew = ringTally{NotOwner: 50} }, unfenced, false},
		{"unfenced: the join was not seen", func(c *ringCase) { c.Joined = false }, unfenced, false},
		{"unfenced: no order served on the rejoined owner", func(c *ringCase) { c.JoinOld = ringTally{} }, unfenced, false},
		{"fenced: the old owner refused while out, the rejoined owner sells", nil, fenced, true},
		{"fenced: the old owner was never refused", func(c *ringCase) { c.LeaveOld = ringTally{Served: 30} }, fenced, false},
		{"fenced: nothing refused in the database", func(c *ringCase) { c.Got.FencedWrites = 0 }, fenced, false},
		{"fenced: a lost update all the same", func(c *ringCase) { c.Got.LostUpdates = 1 }, fenced, false},
		{"fenced: oversold", func(c *ringCase) { c.Got.Oversold = 1 }, fenced, false},
		{"fenced: the new owner sold nothing", func(c *ringCase) { c.LeaveNew = ringTally{Fenced: 20} }, fenced, false},
		{"fenced: the join was not seen", func(c *ringCase) { c.Joined = false }, fenced, false},
		// The rejoined owner's view older than the interim owner's: the
		// database refuses the rightful owner, the sale stops.
		{"fenced: the rejoined owner is refused", func(c *ringCase) { c.JoinOld = ringTally{Fenced: 300} }, fenced, false},
	} {
		c := tc.base
		if tc.change != nil {
			tc.change(&c)
		}
		if got := ringChangeHolds(c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An order's answer lands in its replica's tally of the phase it was sent in.
func TestRingTallyCounts(t *testing.T) {
	var tl ringTally
	for _, k := range []string{shopapi.KindOrder, shopapi.KindOrder, "fenced", "not_owner", shopapi.KindSoldOut} {
		tl.add(k)
	}
	if tl != (ringTally{Served: 2, Fenced: 1, NotOwner: 1, Other: 1}) {
		t.Errorf("tally %+v", tl)
	}
}

// A ring member no target answers for (another replica on the same
// database) is named before the lesson starts: the ring could hand it the
// sale instead of a target.
func TestStrangersAreTheMembersNoTargetIs(t *testing.T) {
	answer := func(self string, members ...string) ringAnswer {
		var r ringAnswer
		r.Replica = self
		for _, m := range members {
			r.View.Members = append(r.View.Members, struct {
				ID string `json:"id"`
			}{m})
		}
		return r
	}
	if got := strangers([]ringAnswer{answer("a", "a", "b"), answer("b", "a", "b")}); len(got) != 0 {
		t.Errorf("two targets, two members: strangers %v", got)
	}
	if got := strangers([]ringAnswer{answer("a", "a", "b", "c"), answer("b", "a", "b", "c")}); len(got) != 1 || got[0] != "c" {
		t.Errorf("a third member: strangers %v, want [c]", got)
	}
}
