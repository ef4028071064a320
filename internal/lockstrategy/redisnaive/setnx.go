package redisnaive

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// SetNXExpire is redis-setnx-expire, the first pitfall of a Redis lock
// ("setnx + expire"): SETNX and EXPIRE are two commands. If the process dies
// (or the connection drops) between them, the key exists with no TTL, and
// the lock is held forever by nobody. The release is owner-checked, so the
// acquisition is the only thing wrong with it.
type SetNXExpire struct {
	rdb *redis.Client
	ttl time.Duration
	// faults: an injected crash fires between the SETNX and the EXPIRE,
	// the point where a dead process leaves a lock that never expires.
	faults faultpoint.Hooks
}

var _ lockstrategy.Locker = (*SetNXExpire)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-setnx-expire",
		Description: "Teaching variant: SETNX then EXPIRE as two commands; a crash between them " +
			"leaves a lock that never expires.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:      false,
		Expiry:    lockstrategy.ExpiryTTL, // normally; ExpiryNever after a crash at the crash point
		Normalize: lockstrategy.TTLOnly,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			l := NewSetNXExpire(b.Redis, o.TTL)
			l.faults = b.Faults
			return l, nil
		},
	})
}

// NewSetNXExpire returns redis-setnx-expire over rdb; ttl 0 means DefaultTTL.
func NewSetNXExpire(rdb *redis.Client, ttl time.Duration) *SetNXExpire {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &SetNXExpire{rdb: rdb, ttl: ttl}
}

// Lock polls SETNX, then sets the TTL in a second command.
func (l *SetNXExpire) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	owner := lockstrategy.NewOwner()
	var start time.Time
	err := pollLock(ctx, func(ctx context.Context) (bool, error) {
		ok, err := l.rdb.SetNX(ctx, key, owner, 0).Result() // no TTL yet
		if err != nil {
			// The SETNX may have run and only its reply been lost: look
			// before giving up, or the key we set stays without a TTL.
			if v, gerr := l.rdb.Get(ctx, key).Result(); gerr == nil && v == owner {
				ok, err = true, nil
			} else {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
				defer cancel()
				_ = compareAndDeleteScript.Run(rctx, l.rdb, []string{key}, owner).Err()
				return false, err
			}
		}
		if !ok {
			return false, nil
		}
		if faultpoint.Acquired(l.faults) {
			return false, lockstrategy.ErrHolderCrashed // "dead" before EXPIRE: the key keeps no TTL
		}
		// THE PITFALL: until this second command lands, a crash leaves the
		// key without a TTL for ever.
		start = time.Now()
		if err := l.rdb.PExpire(ctx, key, l.ttl).Err(); err != nil {
			// Do not leave a TTL-less lock behind if we can help it.
			rctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
			defer cancel()
			_ = compareAndDeleteScript.Run(rctx, l.rdb, []string{key}, owner).Err()
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return nil, wrapErr("setnx-expire", key, err)
	}
	return newTTLLease(start, l.ttl, func(ctx context.Context) error {
		return releaseOwned(ctx, l.rdb, key, owner)
	}), nil
}

// releaseOwned deletes key if owner holds it: ErrNotHeld otherwise.
func releaseOwned(ctx context.Context, rdb *redis.Client, key, owner string) error {
	n, err := compareAndDeleteScript.Run(ctx, rdb, []string{key}, owner).Int64()
	if err != nil {
		return fmt.Errorf("redisnaive: release %s: %w", key, err)
	}
	if n == 0 {
		return lockstrategy.ErrNotHeld
	}
	return nil
}

// wrapErr passes ctx errors through unchanged in meaning (errors.Is still
// matches) and names the variant and key.
func wrapErr(variant, key string, err error) error {
	return fmt.Errorf("redisnaive: %s lock %s: %w", variant, key, err)
}
