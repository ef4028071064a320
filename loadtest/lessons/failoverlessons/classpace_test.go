package failoverlessons

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// At the class pace the ring change keeps two owners for 24 s (the fault
// allows 30) and sends one buyer on each together, so that their sections
// overlap for the whole work, several rounds over, and goes on past the
// old owner's rejoining for at least one round.
func TestRingChangeClassPace(t *testing.T) {
	set := consistentHashingRingChangeSettings(catalogue.PaceClass)
	if !set.Rounds || set.Buyers != 2 {
		t.Fatalf("one buyer on each owner, sent together: %+v", set)
	}
	if overlap := ms(set.WorkMS); overlap < 2*time.Second {
		t.Errorf("the two owners' holders overlap for the work, %v: want >= 2 s", overlap)
	}
	if set.Leave < 20*time.Second || set.Leave > 30*time.Second {
		t.Errorf("the case lasts the leave, %v: want >= 20 s and within the fault's 30 s", set.Leave)
	}
	// Buyers order from the new owner's appearance (hashring.Refresh, 0.5 s, after the leave starts) to the join.
	if rounds := (set.Leave - 500*time.Millisecond) / ms(set.WorkMS); rounds < 3 {
		t.Errorf("%d rounds fit in the leave: want >= 3", rounds)
	}
	// A round is started only while the join is less than After ago: the
	// one under way at the join ends within WorkMS, so After >= WorkMS
	// starts at least one round after the join.
	if set.After < ms(set.WorkMS) {
		t.Errorf("the buyers go on %v past the join, less than a round (%v): no round would start after it", set.After, ms(set.WorkMS))
	}
	if n := consistentHashingRingChangeSettings(catalogue.PaceNormal); n != (ringSettings{Leave: 3 * time.Second, After: time.Second, WorkMS: 50, Buyers: 8}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}
