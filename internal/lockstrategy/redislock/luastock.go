package redislock

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LuaStock is redis-lua-stock, the lock-free baseline ("去分布式锁",
// do without a distributed lock): the stock lives in Redis and one Lua script checks and decrements it,
// so no lock is needed to keep it from going below zero. The order service
// then persists the order with a conditional DB decrement and gives the unit
// back (Unreserve) if that fails. It is a Reserver, not a Locker.
type LuaStock struct {
	rdb *redis.Client
}

var _ lockstrategy.Reserver = (*LuaStock)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-lua-stock",
		Description: "No lock: stock kept in Redis and decremented by a Lua script only while > 0; " +
			"the order is persisted after.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:      true,
		Expiry:    lockstrategy.ExpiryNone,
		Normalize: lockstrategy.NoOptions,
		New: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Instance, error) {
			return NewLuaStock(b.Redis), nil
		},
	})
}

// NewLuaStock returns redis-lua-stock over rdb.
func NewLuaStock(rdb *redis.Client) *LuaStock { return &LuaStock{rdb: rdb} }

// stockKeys are where key's stock lives (KEYS of the scripts): the stock,
// the epoch of its last load (a random id), and the rebuild marker.
func stockKeys(key string) []string {
	return []string{key + ":stock", key + ":stock:epoch", key + ":stock:reloading"}
}

// reloadMarkerTTL bounds a rebuild whose replica died before finishing it:
// the marker expires and the next order claims the rebuild again.
var reloadMarkerTTL = 4 * lockstrategy.StockReloadSettle

// loadScript: ARGV = stock, epoch, only-if-missing (1/0). Sets the stock and
// a new epoch, and ends any rebuild. Returns 1 if it set the stock.
var loadScript = redis.NewScript(`
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('DEL', KEYS[3])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3])
return 1
`)

// reserveScript: check and decrement in one step, the atomicity a GET
// followed by DECR would not have. Returns {result, epoch}: 1 taken, 0 sold
// out, -2 being rebuilt, -3 lost and this caller claims the rebuild (ARGV =
// marker ttl ms).
var reserveScript = redis.NewScript(`
local s = redis.call('GET', KEYS[1])
if not s then
  if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[1]) then return {-3, ''} end
  return {-2, ''}
end
local e = redis.call('GET', KEYS[2]) or ''
if tonumber(s) <= 0 then return {0, e} end
redis.call('DECR', KEYS[1])
return {1, e}
`)

// unreserveScript: ARGV = epoch. INCR only the stock of the same load: on a
// missing one INCR would make a stock of 1 out of nothing, and a rebuilt one
// already counts the unit (it came from the database).
var unreserveScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return -2 end
return redis.call('INCR', KEYS[1])
`)

// overdrawnScript: ARGV = epoch. The database had no unit for a unit of this
// load: the stock of record is 0.
var overdrawnScript = redis.NewScript(`
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], 0)
return 1
`)

// restockScript: ARGV = units. Adds to a stock that is there; a missing
// one is rebuilt from the database, which already counts the units.
var restockScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`)

// Restock adds units to key's stock (a restock the database has already).
func (l *LuaStock) Restock(ctx context.Context, key string, units int64) error {
	if err := restockScript.Run(ctx, l.rdb, stockKeys(key), units).Err(); err != nil {
		return fmt.Errorf("redislock: restock %s: %w", key, err)
	}
	return nil
}

// LoadStock sets key's stock in Redis (when a sale is created or reset).
func (l *LuaStock) LoadStock(ctx context.Context, key string, stock int64) error {
	if err := loadScript.Run(ctx, l.rdb, stockKeys(key), stock, lockstrategy.NewOwner(), 0).Err(); err != nil {
		return fmt.Errorf("redislock: load stock %s: %w", key, err)
	}
	return nil
}

// RestoreStock sets a lost stock again from the database's figure, unless
// it is back already, and ends the rebuild.
func (l *LuaStock) RestoreStock(ctx context.Context, key string, stock int64) error {
	if err := loadScript.Run(ctx, l.rdb, stockKeys(key), stock, lockstrategy.NewOwner(), 1).Err(); err != nil {
		return fmt.Errorf("redislock: restore stock %s: %w", key, err)
	}
	return nil
}

// Reserve takes one unit of key's stock; ok false means sold out.
func (l *LuaStock) Reserve(ctx context.Context, key string) (lockstrategy.Reservation, bool, error) {
	v, err := reserveScript.Run(ctx, l.rdb, stockKeys(key), reloadMarkerTTL.Milliseconds()).Slice()
	if err != nil {
		return lockstrategy.Reservation{}, false, fmt.Errorf("redislock: reserve %s: %w", key, err)
	}
	if len(v) != 2 {
		return lockstrategy.Reservation{}, false, fmt.Errorf("redislock: reserve %s: unexpected reply %v", key, v)
	}
	n, _ := v[0].(int64)
	epoch, _ := v[1].(string)
	switch n {
	case -3:
		return lockstrategy.Reservation{}, false, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloadClaimed, key)
	case -2:
		return lockstrategy.Reservation{}, false, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloading, key)
	}
	return lockstrategy.Reservation{Epoch: epoch}, n == 1, nil
}

// Unreserve gives r's unit back, after its order could not be persisted,
// unless the stock was lost or rebuilt since (the database counts it then).
func (l *LuaStock) Unreserve(ctx context.Context, key string, r lockstrategy.Reservation) error {
	if err := unreserveScript.Run(ctx, l.rdb, stockKeys(key), r.Epoch).Err(); err != nil {
		return fmt.Errorf("redislock: unreserve %s: %w", key, err)
	}
	return nil
}

// Overdrawn sets the stock to 0 when the database had no unit for r.
func (l *LuaStock) Overdrawn(ctx context.Context, key string, r lockstrategy.Reservation) error {
	if err := overdrawnScript.Run(ctx, l.rdb, stockKeys(key), r.Epoch).Err(); err != nil {
		return fmt.Errorf("redislock: zero stock %s: %w", key, err)
	}
	return nil
}

// StockLeft is key's stock in Redis, for the sale view: -1 when it is not
// there (lost, being rebuilt).
func (l *LuaStock) StockLeft(ctx context.Context, key string) (int64, error) {
	n, err := l.rdb.Get(ctx, stockKeys(key)[0]).Int64()
	if errors.Is(err, redis.Nil) {
		return -1, nil
	}
	return n, err
}
