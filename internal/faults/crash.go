package faults

import (
	"errors"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// ErrHolderCrashed is what the crashed acquisition's Lock returns (and so
// the crashed order): it held the lock, abandoned it, wrote nothing.
var ErrHolderCrashed = lockstrategy.ErrHolderCrashed

// CrashAfterSetNX arms a one-shot crash of the next lock acquisition on this
// replica by redis-setnx-expire, redis, redis-getset, db-lock-table or
// db-lock-table-plain (the replica's CrashHook, shared by its strategies):
// "the client dies between SETNX and EXPIRE", against the atomic SET NX PX
// that has no such gap; on the lock table, right after its INSERT. The crash is a return, not a process
// exit: the order fails with ErrHolderCrashed and the Redis key is left
// exactly as a dead process would leave it (no TTL after SETNX; the TTL, but
// no watchdog and no release, after SET NX PX). Arming again before it fires
// changes nothing.
func (s *Service) CrashAfterSetNX() error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	h := s.crashHook()
	if h == nil {
		return errors.New("faults: this replica has no lock strategies to crash")
	}
	h.Arm()
	return nil
}

// CrashStrategies are the strategies an armed crash fires in.
func CrashStrategies() []string {
	return []string{"redis-setnx-expire", "redis", "redis-getset", "db-lock-table", "db-lock-table-plain"}
}

// CrashArmed reports whether a crash is armed on this replica and has not
// fired yet.
func (s *Service) CrashArmed() bool { return s.crashHook().Armed() }

// DisarmCrash cancels an armed crash (tests); it reports whether one was.
func (s *Service) DisarmCrash() bool { return s.crashHook().Disarm() }

// crashHook is the crash point of this replica's strategies; nil (it never
// fires, Armed is false) for a service without strategies.
func (s *Service) crashHook() *lockstrategy.CrashHook {
	if s.lockers == nil {
		return nil
	}
	return s.lockers.Backends().Crash
}
