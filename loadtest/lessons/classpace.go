package lessons

import (
	"context"
	"fmt"
	"time"

	catalogue "github.com/seckill-lab/seckill/internal/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// The class pace is for a class watching the Timeline on a projector: the
// mechanism must last on screen (unsafe holders overlapping for seconds,
// not milliseconds), each case (each sale) must last long enough to
// narrate, and between cases the lesson pauses and says what comes next.
const (
	// classCaseMin is how long each case of a class-paced lesson lasts at
	// least: its buyers come back, round after round, until it has.
	classCaseMin = 20 * time.Second
	// classPause is the pause between two cases at the class pace.
	classPause = 5 * time.Second
)

// contendSettings is the load of brokenThenHeld at one pace.
type contendSettings struct {
	Stock  int64
	WorkMS int
	// Buyers place Orders orders each, one after the other (normal pace).
	Buyers, Orders int
	// Rounds (class pace): Buyers orders sent together (one each, spread
	// over the targets), round after round until the case has lasted
	// CaseMin. The broken strategy lets them all in at once, so each round
	// is an overlap of WorkMS.
	Rounds  bool
	CaseMin time.Duration
}

// brokenThenHeldSettings: at normal pace 16 buyers, 4 orders each, 20 ms
// of work on 40 units; at the class pace two buyers (one on each of two
// replicas) sent together with 3 s of work, round after round for 20 s:
// the broken strategy's two holders overlap for the whole 3 s (seven
// rounds), both reading the stock before either writes (a lost update a
// round), the fix's wait in turn (about four rounds of 6 s). 20 units
// cover the rounds of both.
func brokenThenHeldSettings(pace string) contendSettings {
	if pace == catalogue.PaceClass {
		return contendSettings{Stock: 20, WorkMS: 3000, Buyers: 2, Orders: 1, Rounds: true, CaseMin: classCaseMin}
	}
	return contendSettings{Stock: 40, WorkMS: 20, Buyers: 16, Orders: 4}
}

// ttlSettings is the load of ttlShorterThanWork at one pace.
type ttlSettings struct {
	Stock         int64
	WorkMS, TTLMS int
	// Buyers are sent together, round after round until the case has
	// lasted CaseMin (0: one round).
	Buyers  int
	CaseMin time.Duration
}

// ttlShorterThanWorkSettings: at normal pace three buyers at once, 1800 ms
// of work under a 1000 ms TTL; at the class pace two buyers, 4000 ms of
// work under a 1200 ms TTL, round after round for 20 s: without the
// watchdog the lock expires 1.2 s into the first buyer's work and the
// second enters beside it for the remaining 2.8 s; with it the second
// waits 4 s (within the shop's 10 s lock wait). The watchdog renews every
// TTL/3 (400 ms), leaving 800 ms of slack to a loaded machine.
func ttlShorterThanWorkSettings(pace string) ttlSettings {
	if pace == catalogue.PaceClass {
		return ttlSettings{Stock: 20, WorkMS: 4000, TTLMS: 1200, Buyers: 2, CaseMin: classCaseMin}
	}
	return ttlSettings{Stock: 20, WorkMS: 1800, TTLMS: 1000, Buyers: 3}
}

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
// rounds go on 6 s past the join, so that at least one starts after it.
func consistentHashingRingChangeSettings(pace string) ringSettings {
	if pace == catalogue.PaceClass {
		return ringSettings{Leave: 24 * time.Second, After: 6 * time.Second, WorkMS: 3000, Buyers: 2, Rounds: true}
	}
	return ringSettings{Leave: 3 * time.Second, After: time.Second, WorkMS: 50, Buyers: 8}
}

// next, at the class pace, says what the next case shows (en, and zh in
// the glossary's Chinese): it prints the English to the lesson's output,
// hands both with the time the case starts (now + classPause) to onNext
// (the agent reports it, so that the dashboard says it during the pause),
// and pauses classPause before it. At normal pace it does nothing.
func (sc *ScenarioRun) next(ctx context.Context, en, zh string) error {
	if sc.Pace != catalogue.PaceClass {
		return nil
	}
	if sc.out != nil {
		fmt.Fprintf(sc.out, "   next:          %s (in %.0f s)\n", en, classPause.Seconds())
	}
	if sc.onNext != nil {
		sc.onNext(catalogue.Next{En: en, Zh: zh, At: time.Now().Add(classPause).UTC()})
	}
	return load.Sleep(ctx, classPause)
}

// rounds sends buyers orders together (burst) on sale id, again and
// again until min has passed since the first (one round when min is 0),
// and sums the outcome kinds.
func (sc *ScenarioRun) rounds(ctx context.Context, id uint64, targets []string, buyers int, min time.Duration, prefix string) map[string]int {
	total := map[string]int{}
	start := time.Now()
	for r := 0; ctx.Err() == nil && (r == 0 || time.Since(start) < min); r++ {
		kinds, _ := sc.burstOn(ctx, id, targets, buyers, fmt.Sprintf("%s%d-", prefix, r))
		for k, n := range kinds {
			total[k] += n
		}
	}
	return total
}
