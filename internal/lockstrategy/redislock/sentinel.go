package redislock

import (
	"fmt"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// redis-sentinel is the `redis` strategy, unchanged, over a replicated Redis
// (one master, one replica, three Sentinels) through go-redis's failover
// client. It exists to show the flaw of a single-master Redis
// lock: replication is asynchronous, so a master that dies after granting a
// lock and before the replica has it hands the lock to nobody; the
// promoted replica grants it again (the flaw RedLock was designed for). Not
// Safe: the failover breaks mutual exclusion by design.
func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-sentinel",
		Description: "The redis lock over a master with an asynchronous replica and three Sentinels (go-redis failover " +
			"client): a failover to a replica that never saw the lock lets a second holder in.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedSentinel},
		Safe:   false,
		Tokens: true,
		Expiry: lockstrategy.ExpiryTTL,
		Renews: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			if b.Sentinel == nil {
				return nil, fmt.Errorf("redis-sentinel: %w (no Sentinels)", lockstrategy.ErrMissingBackend)
			}
			return New(b.Sentinel, o), nil
		},
	})
}
