package lockstrategy

import (
	"errors"
	"sync/atomic"
)

// ErrHolderCrashed is what Lock returns when an armed CrashHook fired in it:
// the lock was acquired and then abandoned as a crashed process abandons it.
// The caller holds nothing and must write nothing.
var ErrHolderCrashed = errors.New("lockstrategy: the lock holder crashed (injected fault)")

// CrashHook is the crash point of one replica's locks (Backends.Crash): once
// armed, the next acquisition by a strategy that has a crash point
// (redis-setnx-expire between its SETNX and its EXPIRE, `redis` right after
// its SET NX PX) dies there. It is one value per replica, not a process
// global, so two replicas, two tests or two Instances never fire or disarm
// each other's crash. A nil *CrashHook never fires.
type CrashHook struct {
	armed atomic.Bool
	// Die, when set, runs at the crash point when the hook fires: a test
	// kills its own process there (or panics), so the crash is a real one.
	// Unset, the Lock returns ErrHolderCrashed and leaves the key as a dead
	// process would.
	Die func()
}

// Arm makes the next acquisition at a crash point crash. Arming twice
// before it fires still crashes once.
func (h *CrashHook) Arm() { h.armed.Store(true) }

// Disarm cancels an armed crash; it reports whether one was armed.
func (h *CrashHook) Disarm() bool { return h != nil && h.armed.Swap(false) }

// Armed reports whether a crash is armed and has not fired yet.
func (h *CrashHook) Armed() bool { return h != nil && h.armed.Load() }

// Fire is called by a lock at its crash point. It reports whether the
// acquisition dies there: true for exactly one caller per Arm, however many
// race for it (after Die, when set, returns).
func (h *CrashHook) Fire() bool {
	if h == nil || !h.armed.CompareAndSwap(true, false) {
		return false
	}
	if h.Die != nil {
		h.Die()
	}
	return true
}
