package redisfifo

import (
	"context"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// redis-aggressive is the redis lock with seed 002's aggressive policy for
// a renewal that keeps failing: go on with the work and write anyway. The
// lock still sees the failure (its watchdog's renewal finds the key gone,
// and the lease event says so), but the signal goes nowhere: the lease's
// Lost never closes, so the order flow's check before the write passes.
// The `redis` strategy is the conservative policy: Lost closes and the
// holder stops (lock_lost). Not Safe: a lost lock lets a second holder in
// beside a holder that writes (fencing, where it is on, still refuses the
// stale write).
func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-aggressive",
		Description: "The redis lock whose holder ignores a failed renewal (seed 002's aggressive policy): it keeps " +
			"working and writes though its lock is gone.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:   false,
		Tokens: true,
		Expiry: lockstrategy.ExpiryTTL,
		Renews: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			l := New(b.Redis, o)
			l.crash = b.Crash
			return aggressiveLocker{l}, nil
		},
	})
}

// aggressiveLocker is the redis Locker whose leases hide their loss.
type aggressiveLocker struct{ *Locker }

func (l aggressiveLocker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	le, err := l.Locker.Lock(ctx, key)
	if err != nil {
		return nil, err
	}
	return aggressiveLease{le}, nil
}

// aggressiveLease is a lease whose loss its holder never hears of.
type aggressiveLease struct{ lockstrategy.Lease }

// Lost never closes (a nil channel): the aggressive holder carries on.
func (aggressiveLease) Lost() <-chan struct{} { return nil }
