package leaselessons

import (
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/lessons"
)

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
		return ttlSettings{Stock: 20, WorkMS: 4000, TTLMS: 1200, Buyers: 2, CaseMin: lessons.ClassCaseMin}
	}
	return ttlSettings{Stock: 20, WorkMS: 1800, TTLMS: 1000, Buyers: 3}
}
