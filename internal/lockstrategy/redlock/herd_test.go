package redlock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// herd runs a flash sale's herd on one key: replicas Lockers (processes),
// each with perReplica goroutines taking the lock turns times and holding
// it for a millisecond of work. Every turn must be had within a generous
// deadline, with no two holders at once. It returns the rounds the
// Lockers' acquisitions took, summed.
func herd(t *testing.T, o lockstrategy.Options, replicas, perReplica, turns int) Rounds {
	t.Helper()
	masters := testenv.Redlock(t)
	lockers := make([]*Locker, replicas)
	for i := range lockers {
		lockers[i] = newLocker(t, masters, o)
	}
	key := locktest.Key(t)
	var inside, overlaps, had atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, replicas*perReplica)
	for g := range replicas * perReplica {
		wg.Go(func() {
			l := lockers[g%replicas]
			for range turns {
				le, err := locktest.LockWithin(l, key, 60*time.Second)
				if err != nil {
					errs <- err
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				had.Add(1)
				if err := locktest.Unlock(le); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a contender did not get its turn: %v", err)
	}
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping critical sections", overlaps.Load())
	}
	var sum Rounds
	for _, l := range lockers {
		r := l.Rounds()
		sum.Acquisitions += r.Acquisitions
		sum.Rounds += r.Rounds
		sum.Split += r.Split
	}
	if want := int64(replicas * perReplica * turns); had.Load() != want || sum.Acquisitions != want {
		t.Fatalf("%d turns had, %d acquisitions counted, want %d", had.Load(), sum.Acquisitions, want)
	}
	t.Logf("%d acquisitions: %d rounds (%.1f per acquisition), %d failed quorum rounds (split votes)",
		sum.Acquisitions, sum.Rounds, sum.PerAcquisition(), sum.Split)
	return sum
}

// The herd livelock: 3 processes with 32 contenders each on one key. Each
// round is a SET NX on every master at once; when the lock comes free, each
// master gives its vote to whichever contender reaches it first, and with
// dozens arriving they are different ones: nobody has a quorum, everybody
// releases and retries, and the lock sits free. The count of failed quorum
// rounds (a contender won a vote but no quorum) says it without a clock:
// at most one per acquisition on average. Without the defences (NoQueue)
// the same herd counted about 5 per acquisition (1,426 for 288, 43 rounds
// per acquisition); with them about 0.3 (2.5 rounds per acquisition).
func TestHerdDoesNotSplitTheVotes(t *testing.T) {
	r := herd(t, lockstrategy.Options{}, 3, 32, 3)
	if r.Split > r.Acquisitions {
		t.Fatalf("%d failed quorum rounds for %d acquisitions: the votes split (want at most one per acquisition)", r.Split, r.Acquisitions)
	}
}

// NoQueue is the herd as redsync meets it, each contender polling the
// masters itself: the livelock the lesson redlock-herd shows. It must still
// exclude and let every contender have its turn (slowly); the failed rounds
// are only logged.
func TestHerdWithoutQueueStillExcludes(t *testing.T) {
	herd(t, lockstrategy.Options{NoQueue: true}, 3, 16, 2)
}
