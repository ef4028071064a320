package metrics

import (
	"slices"
	"time"
)

// grant is one lock acquisition: when its buyer arrived and when the lock
// was granted to it.
type grant struct {
	arrived, acquired int64 // UnixNano
}

// Fairness counts lock grants that were served out of arrival order. It is
// a pair of counters so that replicas (and windows) merge by summing; the
// figure itself is computed only when shown.
type Fairness struct {
	// Inverted counts adjacent grants (in grant order) whose buyers arrived
	// in the opposite order: the later grant's buyer had arrived first.
	Inverted int64 `json:"inverted"`
	// Pairs counts adjacent grant pairs looked at.
	Pairs int64 `json:"pairs"`
}

// Add sums two counts.
func (f Fairness) Add(g Fairness) Fairness {
	return Fairness{Inverted: f.Inverted + g.Inverted, Pairs: f.Pairs + g.Pairs}
}

// Ratio is 1 - Inverted/Pairs: 1 when every grant went in arrival order
// (FIFO), 0 when none did (LIFO), and 0 when there was nothing to compare,
// as SaleLive.Fairness documents.
func (f Fairness) Ratio() float64 {
	if f.Pairs == 0 {
		return 0
	}
	return 1 - float64(f.Inverted)/float64(f.Pairs)
}

// fairnessOf sorts one window's grants by grant time and counts adjacent
// pairs whose arrival order is inverted. Adjacent pairs (n-1 per window),
// not all n(n-1)/2 pairs: "was the next buyer served the one that had
// waited longest?" is what a queue-less spin lock (the seed articles'
// SETNX-and-retry loop) gets wrong and a ZooKeeper sequential-node queue
// gets right, and it stays linear in the counters. Pairs straddling two
// windows are not compared: a window is one publish interval of one
// replica, so the cut loses about one pair per second. Equal arrival times
// are not an inversion. grants is sorted in place.
func fairnessOf(grants []grant) Fairness {
	if len(grants) < 2 {
		return Fairness{}
	}
	slices.SortFunc(grants, func(a, b grant) int {
		if a.acquired != b.acquired {
			if a.acquired < b.acquired {
				return -1
			}
			return 1
		}
		// Same grant instant (a lock-free strategy, or a coarse clock):
		// no order was imposed, so count them as in order.
		switch {
		case a.arrived < b.arrived:
			return -1
		case a.arrived > b.arrived:
			return 1
		}
		return 0
	})
	f := Fairness{Pairs: int64(len(grants) - 1)}
	for i := 1; i < len(grants); i++ {
		if grants[i].arrived < grants[i-1].arrived {
			f.Inverted++
		}
	}
	return f
}

// newGrant converts an observation's times; ok is false when the lock was
// never held (Acquired zero), which has no place in the fairness figure.
func newGrant(arrived, acquired time.Time) (grant, bool) {
	if acquired.IsZero() {
		return grant{}, false
	}
	return grant{arrived: arrived.UnixNano(), acquired: acquired.UnixNano()}, true
}
