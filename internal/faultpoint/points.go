package faultpoint

import (
	"context"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Points are the one-shot faults of one replica: each is armed (by
// internal/faults, or by a test) and fires at its point of the road, once.
// One value per replica, never a process global, so that two replicas or
// two tests in one process never fire or disarm each other's faults. The
// zero value has nothing armed.
type Points struct {
	pauseNext, workNext, nestNext atomic.Int64 // ns; 0: not armed
	// stalled counts the sections inside an injected stall (pause or slow
	// work) now: each holds its lock.
	stalled atomic.Int64
	crash   atomic.Bool
	// CrashDie, when set, runs when an armed crash fires: a test kills its
	// own process there (or panics), so the crash is a real one. Unset, the
	// lock returns its crash error and leaves the key as a dead process
	// would.
	CrashDie func()
	gaps     [TakeoverGap + 1]atomic.Int64 // ns per Gap; 0: not armed
	skew     atomic.Int64                  // ns added to Now
	kill     atomic.Pointer[ConsumerPoint]
	// KillProcess kills the process at an armed consumer point; nil: SIGKILL
	// to itself, a crash as real as it gets.
	KillProcess func()
	// commitNext runs once before the next order's commit (tests).
	commitNext atomic.Pointer[func()]
}

var _ Hooks = (*Points)(nil)

// PauseNextSection makes the next locked section stall d after its lease
// check, just before its write: a GC pause or a stopped VM past the lock's
// TTL, the case only fencing survives.
func (p *Points) PauseNextSection(d time.Duration) { p.pauseNext.Store(int64(d)) }

// SlowNextSection makes the next locked section work d longer before its
// lease check: a long business step, during which a lost lease must stop
// the work before the write. It counts in Stalled while it works.
func (p *Points) SlowNextSection(d time.Duration) { p.workNext.Store(int64(d)) }

// NestNextSection makes the next locked section take its own lock again, as
// the same holder, waiting at most d: the reentrancy lesson.
func (p *Points) NestNextSection(d time.Duration) { p.nestNext.Store(int64(d)) }

// Stalled is the number of sections inside an injected pause or slow work
// right now: the holder a test or a lesson waits for before its next step,
// instead of guessing a delay.
func (p *Points) Stalled() int64 { return p.stalled.Load() }

// ArmCrash makes the next acquisition at a crash point crash. Arming twice
// before it fires still crashes once.
func (p *Points) ArmCrash() { p.crash.Store(true) }

// DisarmCrash cancels an armed crash; it reports whether one was armed.
func (p *Points) DisarmCrash() bool { return p.crash.Swap(false) }

// CrashArmed reports whether a crash is armed and has not fired yet.
func (p *Points) CrashArmed() bool { return p.crash.Load() }

// ArmGap holds the next move of kind g open for at most max.
func (p *Points) ArmGap(g Gap, max time.Duration) { p.gaps[g].Store(int64(max)) }

// SetClockSkew makes Now read d ahead (0: the real clock).
func (p *Points) SetClockSkew(d time.Duration) { p.skew.Store(int64(d)) }

// ArmConsumerKill kills the process at point c of the consumer's next batch.
func (p *Points) ArmConsumerKill(c ConsumerPoint) { p.kill.Store(&c) }

// OnNextCommit runs f once, just before the next order's commit.
func (p *Points) OnNextCommit(f func()) { p.commitNext.Store(&f) }

// Nest implements Hooks.
func (p *Points) Nest() time.Duration { return time.Duration(p.nestNext.Swap(0)) }

// Work implements Hooks: the armed slow work, counted as a stall. Not
// ctx-aware on purpose: the business step runs to its end.
func (p *Points) Work(context.Context) { p.stall(&p.workNext) }

// BeforeWrite implements Hooks: the armed pause. Not ctx-aware on purpose:
// a paused process notices nothing.
func (p *Points) BeforeWrite(context.Context) { p.stall(&p.pauseNext) }

func (p *Points) stall(armed *atomic.Int64) {
	d := time.Duration(armed.Swap(0))
	if d <= 0 {
		return
	}
	p.stalled.Add(1)
	time.Sleep(d)
	p.stalled.Add(-1)
}

// BeforeCommit implements Hooks.
func (p *Points) BeforeCommit(context.Context) {
	if f := p.commitNext.Swap(nil); f != nil {
		(*f)()
	}
}

// Acquired implements Hooks: true for exactly one caller per ArmCrash,
// however many race for it (after CrashDie, when set, returns).
func (p *Points) Acquired() bool {
	if !p.crash.CompareAndSwap(true, false) {
		return false
	}
	if p.CrashDie != nil {
		p.CrashDie()
	}
	return true
}

// Gap implements Hooks.
func (p *Points) Gap(g Gap) time.Duration {
	if g <= 0 || int(g) >= len(p.gaps) {
		return 0
	}
	return time.Duration(p.gaps[g].Swap(0))
}

// Now implements Hooks.
func (p *Points) Now() time.Time { return time.Now().Add(time.Duration(p.skew.Load())) }

// Consumer implements Hooks: the armed kill, at its point.
func (p *Points) Consumer(c ConsumerPoint) {
	armed := p.kill.Load()
	if armed == nil || *armed != c || !p.kill.CompareAndSwap(armed, nil) {
		return
	}
	if p.KillProcess != nil {
		p.KillProcess()
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
}
