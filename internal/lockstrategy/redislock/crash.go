package redislock

import (
	"errors"
	"sync/atomic"
)

// ErrHolderCrashed is what Lock returns when an armed crash (ArmCrash) took
// it: the lock was acquired and then abandoned as a crashed process would
// abandon it. The caller holds nothing and must write nothing.
var ErrHolderCrashed = errors.New("redislock: the lock holder crashed (injected fault)")

// crashArmed is the one-shot crash of the faults package's
// crash_after_setnx: process-wide, because a replica's strategies are
// built and cached elsewhere, and consumed by CompareAndSwap so that exactly
// one acquisition crashes however many race for it.
var crashArmed atomic.Bool

// ArmCrash makes the next acquisition by redis-setnx-expire or `redis` in
// this process crash: redis-setnx-expire between its SETNX and its EXPIRE
// (the key is left with no TTL: held for ever by nobody), `redis` right
// after its atomic SET NX PX (no watchdog, no release: the key expires after
// its TTL). Arming twice before a crash still crashes once.
func ArmCrash() { crashArmed.Store(true) }

// DisarmCrash cancels an armed crash; it reports whether one was armed.
func DisarmCrash() bool { return crashArmed.Swap(false) }

// CrashArmed reports whether a crash is armed and not yet taken.
func CrashArmed() bool { return crashArmed.Load() }

// takeCrash consumes the armed crash: true for exactly one caller.
func takeCrash() bool { return crashArmed.CompareAndSwap(true, false) }
