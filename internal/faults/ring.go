package faults

import (
	"context"
	"errors"
	"time"
)

// ErrNoRing: this replica has no consistent-hash ring to leave (stale_ring).
var ErrNoRing = errors.New("faults: this replica has no consistent-hash ring view (stale_ring)")

// StaleRing takes this replica out of the other replicas' consistent-hash
// rings for d while its own view stays as it is (hashring.LeaveStale): the
// sales it owns get a second owner for d.
func (s *Service) StaleRing(ctx context.Context, d time.Duration) error {
	if !s.cfg.Enabled {
		return ErrDisabled
	}
	if s.cfg.Ring == nil {
		return ErrNoRing
	}
	return s.cfg.Ring.LeaveStale(ctx, d)
}

func runStaleRing(ctx context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds(), "left_ring_for_ms": d.Milliseconds()}, s.StaleRing(ctx, d)
}
