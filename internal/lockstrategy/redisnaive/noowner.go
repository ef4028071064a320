package redisnaive

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// NoOwner is redis-no-owner, the release pitfall of a Redis lock ("set ex
// px nx" without the unique value check): the acquisition is a correct
// SET NX PX, but the release is a plain DEL. A holder whose lease expired
// while it worked (no watchdog here) then deletes the NEXT holder's lock,
// and a third buyer walks in beside the second.
type NoOwner struct {
	rdb *redis.Client
	ttl time.Duration
}

var _ lockstrategy.Locker = (*NoOwner)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-no-owner",
		Description: "Teaching variant: SET NX PX, released by a plain DEL; an expired holder " +
			"deletes the next holder's lock.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:      false,
		Expiry:    lockstrategy.ExpiryTTL,
		Normalize: lockstrategy.TTLOnly,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			return NewNoOwner(b.Redis, o.TTL), nil
		},
	})
}

// NewNoOwner returns redis-no-owner over rdb; ttl 0 means DefaultTTL.
func NewNoOwner(rdb *redis.Client, ttl time.Duration) *NoOwner {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &NoOwner{rdb: rdb, ttl: ttl}
}

// Lock polls SET NX PX. The value is written but never checked again.
func (l *NoOwner) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	owner := lockstrategy.NewOwner()
	observe := lockstrategy.LeaseObserverOf(ctx)
	var start time.Time
	err := pollLock(ctx, func(ctx context.Context) (bool, error) {
		start = time.Now()
		return l.rdb.SetNX(ctx, key, owner, l.ttl).Result()
	})
	if err != nil {
		return nil, wrapErr("no-owner", key, err)
	}
	return newTTLLease(start, l.ttl, func(ctx context.Context) error {
		// THE PITFALL: whoever holds key now, this deletes it. GETDEL is
		// still a delete without a condition; the value it hands back only
		// tells whose lock went, so that the harm is counted (freed_other).
		// at precedes the delete, so a buyer it lets in enters after it.
		at := time.Now()
		held, err := l.rdb.GetDel(ctx, key).Result()
		if err != nil && err != redis.Nil {
			return fmt.Errorf("redisnaive: release %s: %w", key, err)
		}
		switch {
		case err == nil && held != owner:
			observe(lockstrategy.LeaseEvent{Event: lockstrategy.LeaseFreedOther, At: at})
		case err == nil:
			observe(lockstrategy.LeaseEvent{Event: lockstrategy.LeaseReleased, At: at})
		}
		return nil
	}), nil
}
