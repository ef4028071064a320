package faults

import (
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
)

// The redis-getset gaps (seed 000's SETNX + GETSET lock): each holds one of
// its two-step moves open until another client has moved, so that a lesson
// shows on a sale the pitfall the seed lists.
const (
	// KindGetSetReleaseGap: the next release's GET-then-DEL waits between the
	// two until the lock has changed hands; the DEL then frees the new
	// holder's lock (「没有保存持有者的唯一标识,可能被别的客户端释放/解锁」).
	KindGetSetReleaseGap = "getset_release_gap"
	// KindGetSetTakeoverGap: the next takeover of an expired lock waits
	// between its GET and its GETSET until another client's GETSET has won;
	// its own GETSET then loses and writes its expiry over the winner's
	// (「该客户端锁的过期时间,可能被别的客户端覆盖」).
	KindGetSetTakeoverGap = "getset_takeover_gap"
)

// GetSetReleaseGap arms the release gap of this replica's redis-getset for
// at most d (the release itself is bounded by the order flow's unlock
// timeout, 5 s).
func (s *Service) GetSetReleaseGap(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	redislock.ArmReleaseGap(d)
	return nil
}

// GetSetTakeoverGap arms the takeover gap of this replica's redis-getset
// for at most d.
func (s *Service) GetSetTakeoverGap(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	redislock.ArmTakeoverGap(d)
	return nil
}

// GetSetGaps is what the gaps and the pitfalls they open did on this
// replica: gaps held now, losing GETSETs that overwrote a winner's expiry,
// releases refused because the value was not theirs any more.
func (s *Service) GetSetGaps() redislock.GapStats { return redislock.GetSetGaps() }
