package faults

// CrashAfterSetNX arms a one-shot crash of the next lock acquisition on this
// replica by redis-setnx-expire, redis, redis-getset, db-lock-table or
// db-lock-table-plain (the replica's fault points, shared by its
// strategies): "the client dies between SETNX and EXPIRE", against the
// atomic SET NX PX that has no such gap; on the lock table, right after its
// INSERT. The crash is a return, not a process exit: the order fails with
// lockstrategy.ErrHolderCrashed and the Redis key is left exactly as a dead process
// would leave it (no TTL after SETNX; the TTL, but no watchdog and no
// release, after SET NX PX). Arming again before it fires changes nothing.
func (s *Service) CrashAfterSetNX() error {
	p, err := s.points()
	if err != nil {
		return err
	}
	p.ArmCrash()
	return nil
}

// CrashStrategies are the strategies an armed crash fires in.
func CrashStrategies() []string {
	return []string{"redis-setnx-expire", "redis", "redis-getset", "db-lock-table", "db-lock-table-plain"}
}

// CrashArmed reports whether a crash is armed on this replica and has not
// fired yet.
func (s *Service) CrashArmed() bool { return s.cfg.Points != nil && s.cfg.Points.CrashArmed() }

// DisarmCrash cancels an armed crash (tests); it reports whether one was.
func (s *Service) DisarmCrash() bool { return s.cfg.Points != nil && s.cfg.Points.DisarmCrash() }
