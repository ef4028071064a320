package lessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// The class pace is for a class watching the Timeline on a projector: the
// mechanism must last on screen (unsafe holders overlapping for seconds,
// not milliseconds), each case (each sale) must last long enough to
// narrate, and between cases the lesson pauses and says what comes next.
const (
	// ClassCaseMin is how long each case of a class-paced lesson lasts at
	// least: its buyers come back, round after round, until it has.
	ClassCaseMin = 20 * time.Second
	// classPause is the pause between two cases at the class pace.
	classPause = 5 * time.Second
	// ShopLockWait is the shop's default lock wait: a buyer queued longer
	// is answered lock_timeout, so a fix's case keeps its last buyer's wait
	// inside it.
	ShopLockWait = 10 * time.Second
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
		return contendSettings{Stock: 20, WorkMS: 3000, Buyers: 2, Orders: 1, Rounds: true, CaseMin: ClassCaseMin}
	}
	return contendSettings{Stock: 40, WorkMS: 20, Buyers: 16, Orders: 4}
}

// Next, at the class pace, says what the next case shows (en, and zh in
// the glossary's Chinese): it prints the English to the lesson's output,
// hands both with the time the case starts (now + classPause) to onNext
// (the agent reports it, so that the dashboard says it during the pause),
// and pauses classPause before it. At normal pace it does nothing.
func (sc *ScenarioRun) Next(ctx context.Context, en, zh string) error {
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

// Rounds sends buyers orders together (burst) on sale id, again and
// again until min has passed since the first (one round when min is 0),
// and sums the outcome kinds.
func (sc *ScenarioRun) Rounds(ctx context.Context, id uint64, targets []string, buyers int, min time.Duration, prefix string) map[string]int {
	total := map[string]int{}
	start := time.Now()
	for r := 0; ctx.Err() == nil && (r == 0 || time.Since(start) < min); r++ {
		kinds, _ := sc.BurstOn(ctx, id, targets, buyers, fmt.Sprintf("%s%d-", prefix, r))
		for k, n := range kinds {
			total[k] += n
		}
	}
	return total
}
