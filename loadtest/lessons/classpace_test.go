package lessons

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	catalogue "github.com/seckill-lab/seckill/internal/lessons"
)

// shopLockWait is the shop's default lock wait: a buyer queued longer is
// answered lock_timeout, which would spoil the fix's case.
const shopLockWait = 10 * time.Second

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// At the class pace brokenThenHeld's broken strategy lets buyers sent
// together in at once: each round is an overlap of the whole work, which
// must last seconds; the rounds go on for 20 s, the stock covers them and
// the fix's queue stays inside the lock wait.
func TestBrokenThenHeldClassPace(t *testing.T) {
	set := brokenThenHeldSettings(catalogue.PaceClass)
	if !set.Rounds || set.Buyers < 2 {
		t.Fatalf("class pace must send at least two buyers together, round after round: %+v", set)
	}
	if overlap := ms(set.WorkMS); overlap < 2*time.Second {
		t.Errorf("the broken strategy's holders overlap for the work, %v: want >= 2 s", overlap)
	}
	if set.CaseMin < 20*time.Second {
		t.Errorf("each case lasts %v: want >= 20 s", set.CaseMin)
	}
	rounds := int64((set.CaseMin + ms(set.WorkMS) - 1) / ms(set.WorkMS)) // the broken case's, the most
	if need := rounds * int64(set.Buyers); set.Stock < need {
		t.Errorf("stock %d < %d orders of %d rounds", set.Stock, need, rounds)
	}
	if wait := time.Duration(set.Buyers-1) * ms(set.WorkMS); wait > shopLockWait/2 {
		t.Errorf("the fix's last buyer waits %v: want well inside the %v lock wait", wait, shopLockWait)
	}
	if n := brokenThenHeldSettings(catalogue.PaceNormal); n != (contendSettings{Stock: 40, WorkMS: 20, Buyers: 16, Orders: 4}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}

// At the class pace ttlShorterThanWork's lease expires mid-work and the
// next buyer works beside the holder for work - ttl, which must last
// seconds; the watchdog keeps its slack and the rounds last 20 s.
func TestTTLShorterThanWorkClassPace(t *testing.T) {
	set := ttlShorterThanWorkSettings(catalogue.PaceClass)
	if set.Buyers < 2 {
		t.Fatalf("at least two buyers: %+v", set)
	}
	if overlap := ms(set.WorkMS - set.TTLMS); overlap < 2*time.Second {
		t.Errorf("the holders overlap for work - ttl, %v: want >= 2 s", overlap)
	}
	if slack := ms(set.TTLMS - set.TTLMS/3); slack < 500*time.Millisecond {
		t.Errorf("the watchdog's slack is %v: want >= 500 ms", slack)
	}
	if wait := time.Duration(set.Buyers-1) * ms(set.WorkMS); wait > shopLockWait-4*time.Second {
		t.Errorf("with the watchdog the last buyer waits %v: want 4 s inside the %v lock wait", wait, shopLockWait)
	}
	if set.CaseMin < 20*time.Second {
		t.Errorf("each case lasts %v: want >= 20 s", set.CaseMin)
	}
	// With the watchdog a round is the buyers' work one after the other.
	round := time.Duration(set.Buyers) * ms(set.WorkMS)
	if need := int64((set.CaseMin+round-1)/round) * int64(set.Buyers); set.Stock < need {
		t.Errorf("stock %d < %d orders of the watchdog's rounds", set.Stock, need)
	}
	if n := ttlShorterThanWorkSettings(catalogue.PaceNormal); n != (ttlSettings{Stock: 20, WorkMS: 1800, TTLMS: 1000, Buyers: 3}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}

// At the class pace the ring change keeps two owners for 24 s (the fault
// allows 30) and sends one buyer on each together, so that their sections
// overlap for the whole work, several rounds over.
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
	// Buyers order until leave - 1 s, minus the wait for the new owner (hashring.Refresh, 0.5 s).
	if rounds := (set.Leave - 1500*time.Millisecond) / ms(set.WorkMS); rounds < 3 {
		t.Errorf("%d rounds fit in the leave: want >= 3", rounds)
	}
	if n := consistentHashingRingChangeSettings(catalogue.PaceNormal); n != (ringSettings{Leave: 3 * time.Second, WorkMS: 50, Buyers: 8}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}

// next prints what comes next and pauses at the class pace only.
func TestNextPausesAtClassPaceOnly(t *testing.T) {
	var out bytes.Buffer
	sc := &ScenarioRun{Pace: catalogue.PaceNormal, out: &out}
	start := time.Now()
	if err := sc.next(context.Background(), "the fix"); err != nil || out.Len() > 0 || time.Since(start) > time.Second {
		t.Errorf("normal pace: err %v, output %q after %v", err, out.String(), time.Since(start))
	}
	if classPause < 3*time.Second {
		t.Errorf("the pause between cases is %v: want >= 3 s to say what comes next", classPause)
	}
	sc.Pace = catalogue.PaceClass
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the pause itself is classPause; a cancelled run ends it at once
	_ = sc.next(ctx, "the same buyers on db-pessimistic")
	if got := out.String(); !strings.Contains(got, "next:") || !strings.Contains(got, "the same buyers on db-pessimistic") {
		t.Errorf("class pace output %q: want a next: line naming the next case", got)
	}
}
