package redislock

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// ErrStockNotLoaded means Reserve or Unreserve found no stock key in Redis:
// LoadStock never ran for the sale, or Redis lost the key (restart without
// persistence). Answering "sold out" instead would hide that.
var ErrStockNotLoaded = errors.New("redislock: stock not loaded in redis")

// LuaStock is redis-lua-stock, the lock-free baseline of seed 002 ("去分布式
// 锁"): the stock lives in Redis and one Lua script checks and decrements it,
// so no lock is needed to keep it from going below zero. The order service
// then persists the order with a conditional DB decrement and gives the unit
// back (Unreserve) if that fails. Lock is a no-op.
type LuaStock struct {
	rdb *redis.Client
}

var (
	_ lockstrategy.Locker   = (*LuaStock)(nil)
	_ lockstrategy.Reserver = (*LuaStock)(nil)
)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-lua-stock",
		Description: "No lock: stock kept in Redis and decremented by a Lua script only while > 0; " +
			"the order is persisted after.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:   true,
		Expiry: lockstrategy.ExpiryNone,
		New: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Locker, error) {
			return NewLuaStock(b.Redis), nil
		},
	})
}

// NewLuaStock returns redis-lua-stock over rdb.
func NewLuaStock(rdb *redis.Client) *LuaStock { return &LuaStock{rdb: rdb} }

// stockKey is where key's stock lives.
func stockKey(key string) string { return key + ":stock" }

// reserveScript: KEYS = stock. Check and decrement in one step, the atomicity
// a GET followed by DECR would not have. -1: no stock key; 0: sold out.
var reserveScript = redis.NewScript(`
local s = redis.call('GET', KEYS[1])
if not s then return -1 end
if tonumber(s) <= 0 then return 0 end
redis.call('DECR', KEYS[1])
return 1
`)

// unreserveScript: KEYS = stock. INCR only an existing key: INCR on a missing
// one would create a stock of 1 out of nothing.
var unreserveScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('INCR', KEYS[1])
`)

// Lock takes no lock: the stock script is the synchronisation.
func (*LuaStock) Lock(ctx context.Context, _ string) (lockstrategy.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return lockstrategy.NopLease(), nil
}

// LoadStock sets key's stock in Redis (when a sale is created or reset).
func (l *LuaStock) LoadStock(ctx context.Context, key string, stock int64) error {
	if err := l.rdb.Set(ctx, stockKey(key), stock, 0).Err(); err != nil {
		return fmt.Errorf("redislock: load stock %s: %w", key, err)
	}
	return nil
}

// Reserve takes one unit of key's stock; false means sold out.
func (l *LuaStock) Reserve(ctx context.Context, key string) (bool, error) {
	n, err := reserveScript.Run(ctx, l.rdb, []string{stockKey(key)}).Int64()
	switch {
	case err != nil:
		return false, fmt.Errorf("redislock: reserve %s: %w", key, err)
	case n < 0:
		return false, fmt.Errorf("%w: %s", ErrStockNotLoaded, key)
	}
	return n == 1, nil
}

// Unreserve gives one unit back, after the order could not be persisted.
func (l *LuaStock) Unreserve(ctx context.Context, key string) error {
	n, err := unreserveScript.Run(ctx, l.rdb, []string{stockKey(key)}).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("redislock: unreserve %s: %w", key, err)
	case n < 0:
		return fmt.Errorf("%w: %s", ErrStockNotLoaded, key)
	}
	return nil
}
