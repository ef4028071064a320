package redisnaive

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// GetSet is redis-getset, the "setnx + value值是过期时间" lock: the
// value is the expiry time, written by the client's own clock; SETNX takes
// a free lock; a contender that reads an expiry in the past takes the lock
// over with GETSET, and wins only if GETSET hands back the expiry it read.
// The release is two steps: GET, compare with our value, DEL.
// Its pitfalls, which the tests measure:
//   - 「过期时间是客户端自己生成的,分布式环境下,每个客户端的时间必须同步」: a
//     client whose clock runs ahead reads a live lock as expired and takes it;
//   - 「该客户端锁的过期时间,可能被别的客户端覆盖」: a loser's GETSET has
//     written its own expiry over the winner's;
//   - 「没有保存持有者的唯一标识」: the value is an expiry, not an owner, and
//     the GET-then-DEL release is not atomic: the lock can change hands
//     between the two, and the DEL frees the new holder's lock.
type GetSet struct {
	rdb    *redis.Client
	ttl    time.Duration
	faults faultpoint.Hooks // crash_after_setnx (the holder dies right after taking the lock), clock_skew, the gaps
	// skew is added to this client's clock (tests and lessons: a client
	// whose clock runs ahead or behind).
	skew time.Duration
	// hooks, for tests that build an interleaving step by step.
	betweenGetAndGetSet func()
	betweenGetAndDel    func()
}

var _ lockstrategy.Locker = (*GetSet)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-getset",
		Description: "Teaching variant (seed 000): SETNX with the client's expiry time as the value, GETSET to " +
			"take over an expired lock, released by GET then DEL; clocks must agree.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:      false,
		Expiry:    lockstrategy.ExpiryTTL,
		Normalize: lockstrategy.TTLOnly,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			l := NewGetSet(b.Redis, o.TTL)
			l.faults = b.Faults
			return l, nil
		},
	})
}

// NewGetSet returns redis-getset over rdb; ttl 0 means DefaultTTL.
func NewGetSet(rdb *redis.Client, ttl time.Duration) *GetSet {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &GetSet{rdb: rdb, ttl: ttl}
}

// WithClockSkew returns a copy of l whose clock is off by skew.
func (l *GetSet) WithClockSkew(skew time.Duration) *GetSet {
	c := *l
	c.skew = skew
	return &c
}

// now is this client's clock: the real one, moved by the clock_skew fault
// (faults) and by WithClockSkew. Only this strategy reads a client's clock
// for its lock; the others keep the server's time.
func (l *GetSet) now() time.Time {
	return faultpoint.Now(l.faults).Add(l.skew)
}

// Lock polls tryLock until it succeeds or ctx ends.
func (l *GetSet) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	var mine string
	var start time.Time
	err := pollLock(ctx, func(ctx context.Context) (ok bool, err error) {
		start = time.Now()
		ok, mine, err = l.tryLock(ctx, key)
		return ok, err
	})
	if err != nil {
		return nil, wrapErr("getset", key, err)
	}
	if faultpoint.Acquired(l.faults) {
		// Dead right after taking the lock: the key keeps the expiry this
		// client wrote, which frees it (by the others' clocks).
		return nil, wrapErr("getset", key, lockstrategy.ErrHolderCrashed)
	}
	return newTTLLease(start, l.ttl, func(ctx context.Context) error { return l.release(ctx, key, mine) }), nil
}

// tryLock is SETNX of an expiry time, then, on a lock found expired,
// GETSET of a new one, step by step as the lock is usually written; mine is
// the value written.
func (l *GetSet) tryLock(ctx context.Context, key string) (ok bool, mine string, err error) {
	mine = strconv.FormatInt(l.now().Add(l.ttl).UnixMilli(), 10)
	if ok, err := l.rdb.SetNX(ctx, key, mine, 0).Result(); ok || err != nil {
		return ok, mine, err
	}
	cur, err := l.rdb.Get(ctx, key).Result()
	if err == redis.Nil {
		return false, mine, nil // freed meanwhile: the next round's SETNX
	}
	if err != nil {
		return false, mine, err
	}
	expires, perr := strconv.ParseInt(cur, 10, 64)
	if perr != nil || expires >= l.now().UnixMilli() {
		return false, mine, nil // held (by this client's clock)
	}
	if l.betweenGetAndGetSet != nil {
		l.betweenGetAndGetSet()
	}
	holdGap(ctx, l.rdb, faultpoint.GapOf(l.faults, faultpoint.TakeoverGap), key, cur)
	// Expired: take it over. GETSET writes our expiry whether or not we win.
	old, err := l.rdb.GetSet(ctx, key, mine).Result()
	if err != nil && err != redis.Nil {
		return false, mine, err
	}
	if err == nil && old != cur {
		gapStats.overwrites.Add(1) // lost, and our expiry replaced the winner's
	}
	return old == cur, mine, nil
}

// release is the two-step release: GET, compare, DEL (not atomic).
func (l *GetSet) release(ctx context.Context, key, mine string) error {
	cur, err := l.rdb.Get(ctx, key).Result()
	if err == redis.Nil || (err == nil && cur != mine) {
		gapStats.refused.Add(1)
		return fmt.Errorf("redisnaive: getset: %w: %s holds %q, not our %q", lockstrategy.ErrNotHeld, key, cur, mine)
	}
	if err != nil {
		return fmt.Errorf("redisnaive: getset release %s: %w", key, err)
	}
	if l.betweenGetAndDel != nil {
		l.betweenGetAndDel()
	}
	if holdGap(ctx, l.rdb, faultpoint.GapOf(l.faults, faultpoint.ReleaseGap), key, mine) {
		gapStats.freedOthers.Add(1) // the DEL below deletes the new holder's lock
	}
	// THE PITFALL: the lock may have changed hands since the GET.
	if err := l.rdb.Del(ctx, key).Err(); err != nil {
		return fmt.Errorf("redisnaive: getset release %s: %w", key, err)
	}
	return nil
}
