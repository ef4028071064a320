package redislock

import (
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// redis-aggressive is the redis lock under seed 002's aggressive policy
// for a renewal that fails: the holder hears of it and chooses to go on.
// The lock is redis's, unchanged: its watchdog's failed renewal closes
// Lost and records the lease event lost, as for `redis`. The choice is the
// holder's: the strategy declares GoesOnWhenLost, and the order flow's
// check before the write, finding Lost closed, writes anyway and records
// that it went on knowingly (lease event went_on), where under `redis`
// (the conservative policy) the same check stops the work (lock_lost).
// Not Safe: a lost lock lets a second holder in beside a holder that
// writes (fencing, where it is on, still refuses the stale write).
func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-aggressive",
		Description: "The redis lock whose holder, told that a renewal failed and the lock is lost, chooses to go on " +
			"(seed 002's aggressive policy): it writes anyway, and records that it did (went_on).",
		Needs:          []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:           false,
		Tokens:         true,
		Expiry:         lockstrategy.ExpiryTTL,
		Renews:         true,
		GoesOnWhenLost: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			l := New(b.Redis, o)
			l.faults = b.Faults
			return l, nil
		},
	})
}
