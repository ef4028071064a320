package faults

import "github.com/seckill-lab/seckill/internal/lockstrategy/redislock"

// ErrHolderCrashed is what the crashed acquisition's Lock returns (and so
// the crashed order): it held the lock, abandoned it, wrote nothing.
var ErrHolderCrashed = redislock.ErrHolderCrashed

// CrashAfterSetNX arms a one-shot crash of the next lock acquisition in this
// process by redis-setnx-expire or redis (redislock.ArmCrash): seed 000's
// "the client dies between SETNX and EXPIRE", against the atomic SET NX PX
// that has no such gap. The crash is a return, not a process exit: the order
// fails with ErrHolderCrashed and the Redis key is left exactly as a dead
// process would leave it (no TTL after SETNX; the TTL, but no watchdog and no
// release, after SET NX PX). Arming again before it fires changes nothing.
func (s *Service) CrashAfterSetNX() error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	redislock.ArmCrash()
	return nil
}

// CrashStrategies are the strategies an armed crash fires in.
func CrashStrategies() []string { return []string{"redis-setnx-expire", "redis"} }

// CrashArmed reports whether a crash is armed and has not fired yet.
func CrashArmed() bool { return redislock.CrashArmed() }

// DisarmCrash cancels an armed crash (tests); it reports whether one was.
func DisarmCrash() bool { return redislock.DisarmCrash() }
