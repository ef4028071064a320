package faults

import (
	"time"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisnaive"
)

// GetSetReleaseGap arms the release gap of this replica's redis-getset for
// at most d: the next release's GET-then-DEL waits between the two until the
// lock has changed hands, so that the DEL frees the new holder's lock (the
// value names no owner) (the release itself is bounded by the order flow's unlock
// timeout, 5 s).
func (s *Service) GetSetReleaseGap(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) { p.ArmGap(faultpoint.ReleaseGap, d) })
}

// GetSetTakeoverGap arms the takeover gap of this replica's redis-getset
// for at most d: the next takeover of an expired lock waits between its GET
// and its GETSET until another client's GETSET has won, so that its own
// GETSET loses and writes its expiry over the winner's.
func (s *Service) GetSetTakeoverGap(d time.Duration) error {
	return s.armed(d, func(p *faultpoint.Points) { p.ArmGap(faultpoint.TakeoverGap, d) })
}

// GetSetGaps is what redis-getset's gaps have done in this process: the
// gaps held now, the takeovers that overwrote a winner's expiry, the
// releases refused and the locks freed under another holder.
func (s *Service) GetSetGaps() redisnaive.GapStats { return redisnaive.GetSetGaps() }
