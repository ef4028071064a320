package failoverlessons

import (
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// ringSettings is the load of consistentHashingRingChange at one pace.
type ringSettings struct {
	// Leave is how long the old owner is out of the others' rings.
	Leave time.Duration
	// After is how long the buyers go on once the old owner is seen back
	// in every replica's ring (the join).
	After  time.Duration
	WorkMS int
	Buyers int
	// Rounds (class pace): the buyers, one on each owner, are sent
	// together round after round, so their sections overlap for WorkMS;
	// otherwise each buyer orders again as soon as it is answered.
	Rounds bool
}

// consistentHashingRingChangeSettings: at normal pace the owner leaves
// for 3 s and 8 buyers order with 50 ms of work, until 1 s after it is
// seen back; at the class pace it leaves for 24 s (the fault allows 30)
// and one buyer on each owner is sent together with 3 s of work, round
// after round: both owners' holders overlap for 3 s each round, and the
// Rounds go on 6 s past the join, so that at least one starts after it.
func consistentHashingRingChangeSettings(pace string) ringSettings {
	if pace == catalogue.PaceClass {
		return ringSettings{Leave: 24 * time.Second, After: 6 * time.Second, WorkMS: 3000, Buyers: 2, Rounds: true}
	}
	return ringSettings{Leave: 3 * time.Second, After: time.Second, WorkMS: 50, Buyers: 8}
}
