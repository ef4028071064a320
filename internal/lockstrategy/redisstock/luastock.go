// Package redisstock is redis-lua-stock: the sale's stock kept in Redis,
// a unit taken by one Lua script (a lockstrategy.Reserver, no lock), each
// unit in flight until it is settled, its snapshot for the reconciliation
// and its rebuild after Redis lost it.
package redisstock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/reserved"
)

// LuaStock is redis-lua-stock, the lock-free baseline: the stock lives in
// Redis (Redis pre-deduction) and one Lua script checks and decrements it,
// so no lock is needed to keep it from going below zero. The order service
// then persists the order with a conditional DB decrement and gives the unit
// back (Unreserve) if that fails. It is a Reserver, not a Locker. ("去分布式锁",
// doing without a distributed lock, also names other ways:
// an optimistic database update, and consistent hashing that sends a key's
// requests to one process.)
//
// With stock_shards > 1 the stock is split into that many keys (库存分段):
// shard 0 is SaleKeys.Stock, shard i its ":i" key (ShardKeys). The script
// takes from the buyer's home shard, or the next with stock, in one step;
// what is given back lands in shard 0.
type LuaStock struct {
	rdb    *redis.Client
	shards int // the stock's keys, >= 1
}

var _ lockstrategy.Reserver = (*LuaStock)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-lua-stock",
		Description: "No lock: stock kept in Redis and decremented by a Lua script only while > 0; " +
			"the order is persisted after.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:        true,
		Expiry:      lockstrategy.ExpiryNone,
		Queues:      true,
		SplitsStock: true,
		Normalize: func(o lockstrategy.Options) lockstrategy.Options {
			return lockstrategy.Options{StockShards: o.StockShards}
		},
		NewReserver: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Reserver, error) {
			return NewShardedLuaStock(b.Redis, o.StockShards), nil
		},
	})
}

// NewLuaStock returns redis-lua-stock over rdb, the stock in one key.
func NewLuaStock(rdb *redis.Client) *LuaStock { return NewShardedLuaStock(rdb, 1) }

// NewShardedLuaStock returns redis-lua-stock over rdb, the stock split
// into shards keys (1: one key).
func NewShardedLuaStock(rdb *redis.Client, shards int) *LuaStock {
	return &LuaStock{rdb: rdb, shards: max(shards, 1)}
}

// SaleKeys are where a sale's stock lives in Redis (the KEYS of the
// scripts), under the sale's key.
type SaleKeys struct {
	Stock     string // the units left
	Epoch     string // a random id of the stock's last load
	Reloading string // the rebuild marker
	// InFlight: ticket -> where it is (a queue entry id, or "s:" and the
	// store's clock in ms when it was taken, for an order being persisted
	// synchronously), from the unit's taking to its settling.
	InFlight string
	// Returned: the ids of orders whose unit went back (expired
	// reservations), so that a unit goes back once.
	Returned string
	// SyncIndex: the in-flight keys of every sale of the keyspace that has
	// (or had) a synchronous unit in flight, for the reclaim of the units a
	// dead replica left (SalesInFlight).
	SyncIndex string
}

// KeysOf returns the keys of the sale whose key is key. A sale's key is
// "<keyspace>:sale:<id>" (order.Service.LockKey); its keyspace's index is
// SyncIndexOf(keyspace).
func KeysOf(key string) SaleKeys {
	keyspace := key
	if i := strings.LastIndex(key, ":sale:"); i >= 0 {
		keyspace = key[:i]
	}
	return SaleKeys{Stock: key + ":stock", Epoch: key + ":stock:epoch", Reloading: key + ":stock:reloading",
		InFlight: key + ":inflight", Returned: key + ":returned", SyncIndex: SyncIndexOf(keyspace)}
}

// SyncIndexOf is the key of keyspace's index of sales with synchronous
// units in flight.
func SyncIndexOf(keyspace string) string { return keyspace + ":sync-inflight" }

// stockKeys are KeysOf(key) in the scripts' order.
func stockKeys(key string) []string {
	k := KeysOf(key)
	return []string{k.Stock, k.Epoch, k.Reloading, k.InFlight, k.Returned, k.SyncIndex}
}

// ShardKeys are the keys of a stock split into n: shard 0 is the stock's
// own key, shard i its ":i" key.
func ShardKeys(key string, n int) []string {
	stock := KeysOf(key).Stock
	out := []string{stock}
	for i := 1; i < n; i++ {
		out = append(out, stock+":"+strconv.Itoa(i))
	}
	return out
}

// keys are the scripts' KEYS: stockKeys, then the shards after shard 0
// (KEYS[7] on). The scripts read the number of shards from #KEYS.
func (l *LuaStock) keys(key string) []string {
	return append(stockKeys(key), ShardKeys(key, l.shards)[1:]...)
}

// shardsLua defines, in a script, shard(i) (the key of shard i, 0-based)
// and nshards over keys().
const shardsLua = `
local nshards = #KEYS - 5
local function shard(i) if i == 0 then return KEYS[1] end return KEYS[6 + i] end
`

// reloadMarkerTTL bounds a rebuild whose replica died before finishing it:
// the marker expires and the next order claims the rebuild again.
var reloadMarkerTTL = 4 * reserved.ReloadSettle

// loadScript: ARGV = stock, epoch, only-if-missing (1/0), then the ids of
// orders whose unit the stock already counts as returned. Sets the stock
// (split over the shards as evenly as possible, the remainder on the first)
// and a new epoch, forgets what was in flight (the database it comes from
// counts it), and ends any rebuild. Returns 1 if it set the stock.
var loadScript = redis.NewScript(shardsLua + `
if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('DEL', KEYS[3])
  return 0
end
local total = tonumber(ARGV[1])
for i = 0, nshards - 1 do
  local share = math.floor(total / nshards)
  if i < total % nshards then share = share + 1 end
  redis.call('SET', shard(i), share)
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
for i = 4, #ARGV do redis.call('SADD', KEYS[5], ARGV[i]) end
return 1
`)

// reserveScript: check and decrement in one step, the atomicity a GET
// followed by DECR would not have, and note the unit in flight with the
// time it was taken, and the sale in the keyspace's index. ARGV = marker
// ttl ms, ticket. Returns {result, seconds, microseconds} (the store's
// clock): 1 taken, 0 sold out, -2 being rebuilt, -3 lost and this caller
// claims the rebuild. ARGV[3] is the buyer's home shard: the unit comes
// from it, or from the next shard with stock; sold out when every shard is.
var reserveScript = redis.NewScript(shardsLua + `
if not redis.call('GET', KEYS[1]) then
  if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[1]) then return {-3, '0', '0'} end
  return {-2, '0', '0'}
end
local home, taken = tonumber(ARGV[3]), false
for step = 0, nshards - 1 do
  local k = shard((home + step) % nshards)
  if tonumber(redis.call('GET', k) or '0') > 0 then
    redis.call('DECR', k)
    taken = true
    break
  end
end
if not taken then return {0, '0', '0'} end
local t = redis.call('TIME')
local ms = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
redis.call('HSET', KEYS[4], ARGV[2], 's:' .. ms)
redis.call('ZADD', KEYS[6], ms, KEYS[4])
return {1, t[1], t[2]}
`)

// settleScript: ARGV = ticket, what to do: 0 nothing (the order committed),
// 1 give the unit back (to shard 0), 2 zero the stock (every shard: the
// database had no unit). Only a
// ticket still in flight is acted on: a unit goes back once, and never into
// a stock rebuilt since (the rebuild forgot the ticket). Returns 1 if the
// ticket was in flight.
var settleScript = redis.NewScript(shardsLua + `
if redis.call('HDEL', KEYS[4], ARGV[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ARGV[2] == '1' then redis.call('INCR', KEYS[1]) end
  if ARGV[2] == '2' then for i = 0, nshards - 1 do redis.call('SET', shard(i), 0) end end
end
return 1
`)

// returnScript: ARGV = order id. Gives the unit of an expired order back,
// once: the id joins the returned set with the INCR. Without a stock (lost,
// not rebuilt yet) it does nothing and answers -1: the rebuild reads the
// database, which counts the unit, and marks every expired order returned.
var returnScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SADD', KEYS[5], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[1])
return 1
`)

// snapshotScript reads, in one step, what a reconciliation compares with the
// database: {stock (the sum of the shards) or ”, in-flight tickets and
// where each is (HGETALL), returned count, seconds, µs}.
var snapshotScript = redis.NewScript(shardsLua + `
local t = redis.call('TIME')
local stock = ''
if redis.call('EXISTS', KEYS[1]) == 1 then
  local sum = 0
  for i = 0, nshards - 1 do sum = sum + tonumber(redis.call('GET', shard(i)) or '0') end
  stock = string.format('%d', sum)
end
return {stock, redis.call('HGETALL', KEYS[4]), redis.call('SCARD', KEYS[5]), t[1], t[2]}
`)

// restockScript: ARGV = units (signed). Adds to a stock that is there; a
// missing one is rebuilt from the database, which already counts the units.
var restockScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('INCRBY', KEYS[1], ARGV[1])
`)

// Restock adds units to key's stock (a restock the database has already).
func (l *LuaStock) Restock(ctx context.Context, key string, units int64) error {
	if err := restockScript.Run(ctx, l.rdb, l.keys(key), units).Err(); err != nil {
		return fmt.Errorf("redisnaive: restock %s: %w", key, err)
	}
	return nil
}

// LoadStock sets key's stock in Redis (when a sale is created or reset).
func (l *LuaStock) LoadStock(ctx context.Context, key string, stock int64) error {
	if err := loadScript.Run(ctx, l.rdb, l.keys(key), stock, lockstrategy.NewOwner(), 0).Err(); err != nil {
		return fmt.Errorf("redisnaive: load stock %s: %w", key, err)
	}
	return nil
}

// RestoreStock sets a lost stock again from the database's figure, unless
// it is back already, and ends the rebuild.
func (l *LuaStock) RestoreStock(ctx context.Context, key string, stock int64, returned []uint64) error {
	args := []any{stock, lockstrategy.NewOwner(), 1}
	for _, id := range returned {
		args = append(args, id)
	}
	if err := loadScript.Run(ctx, l.rdb, l.keys(key), args...).Err(); err != nil {
		return fmt.Errorf("redisnaive: restore stock %s: %w", key, err)
	}
	return nil
}

// Reserve takes one unit of key's stock for buyer who (from its home
// shard, buyer.HomeShard, or the next with stock); ok false means sold
// out.
func (l *LuaStock) Reserve(ctx context.Context, key, who string) (lockstrategy.Reservation, bool, error) {
	ticket := NewTicket("")
	v, err := reserveScript.Run(ctx, l.rdb, l.keys(key), reloadMarkerTTL.Milliseconds(), ticket,
		buyer.HomeShard(who, l.shards)).Slice()
	if err != nil {
		return lockstrategy.Reservation{}, false, fmt.Errorf("redisnaive: reserve %s: %w", key, err)
	}
	if len(v) != 3 {
		return lockstrategy.Reservation{}, false, fmt.Errorf("redisnaive: reserve %s: unexpected reply %v", key, v)
	}
	n, _ := v[0].(int64)
	switch n {
	case -3:
		return lockstrategy.Reservation{}, false, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloadClaimed, key)
	case -2:
		return lockstrategy.Reservation{}, false, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloading, key)
	case 0:
		return lockstrategy.Reservation{}, false, nil
	}
	return lockstrategy.Reservation{Ticket: ticket, AcceptedAt: RedisTime(v[1], v[2])}, true, nil
}

// Settled ends r after its order committed.
func (l *LuaStock) Settled(ctx context.Context, key string, r lockstrategy.Reservation) error {
	return l.settle(ctx, key, r, SettleKeep)
}

// Unreserve gives r's unit back, after its order could not be persisted,
// unless r is no longer in flight (settled, or the stock rebuilt since).
func (l *LuaStock) Unreserve(ctx context.Context, key string, r lockstrategy.Reservation) error {
	return l.settle(ctx, key, r, SettleGiveBack)
}

// Overdrawn sets the stock to 0 when the database had no unit for r.
func (l *LuaStock) Overdrawn(ctx context.Context, key string, r lockstrategy.Reservation) error {
	return l.settle(ctx, key, r, SettleZero)
}

// What settling a ticket does to the stock.
const (
	SettleKeep     = 0 // the order committed: the unit is sold
	SettleGiveBack = 1 // no order: the unit goes back
	SettleZero     = 2 // the database had no unit: the stock is above the truth
)

func (l *LuaStock) settle(ctx context.Context, key string, r lockstrategy.Reservation, how int) error {
	if err := settleScript.Run(ctx, l.rdb, l.keys(key), r.Ticket, how).Err(); err != nil {
		return fmt.Errorf("redisnaive: settle %s %s: %w", key, r.Ticket, err)
	}
	return nil
}

// ReturnUnit gives back the unit of expired order orderID, once however
// often it is called. counted is true once key's stock counts the unit
// (given back now, or before); false when there is no stock to give it to
// (lost and not rebuilt yet): the return stays due, and the rebuild, which
// counts every expired order, completes it.
func (l *LuaStock) ReturnUnit(ctx context.Context, key string, orderID uint64) (counted bool, err error) {
	n, err := returnScript.Run(ctx, l.rdb, l.keys(key), orderID).Int64()
	if err != nil {
		return false, fmt.Errorf("redisnaive: return the unit of order %d to %s: %w", orderID, key, err)
	}
	return n != -1, nil
}

// ReturnedAmong says which of ids are in key's returned set.
func (l *LuaStock) ReturnedAmong(ctx context.Context, key string, ids []uint64) ([]bool, error) {
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = id
	}
	in, err := l.rdb.SMIsMember(ctx, KeysOf(key).Returned, members...).Result()
	if err != nil {
		return nil, fmt.Errorf("redisnaive: returned set of %s: %w", key, err)
	}
	return in, nil
}

// Adjust adds units (negative: removes) to key's stock: a reconciliation's
// repair. ok false when the stock is missing (a rebuild sets it).
func (l *LuaStock) Adjust(ctx context.Context, key string, units int64) (ok bool, err error) {
	n, err := restockScript.Run(ctx, l.rdb, l.keys(key), units).Int64()
	if err != nil {
		return false, fmt.Errorf("redisnaive: adjust %s by %d: %w", key, units, err)
	}
	return n != -1, nil
}

// StockSnapshot is what the store holds of a sale at one instant.
type StockSnapshot struct {
	Stock    int64    // -1: missing (lost, being rebuilt)
	InFlight []string // tickets taken and not settled
	// Stale are the tickets of InFlight taken for a synchronous order more
	// than reserved.Stale ago: their replica died or lost
	// touch before settling them (reclaimed by Reclaimable's caller).
	Stale []string
	// StaleQueued are the tickets of InFlight queued (async) more than
	// reserved.QueuedStale ago: stuck (their entry lost, or failing
	// for good); a repair settles them.
	StaleQueued []string
	Returned    int64     // expired orders whose unit went back
	At          time.Time // the store's clock at the snapshot
}

// Snapshot reads key's stock, in-flight tickets and returned count at one
// instant.
func (l *LuaStock) Snapshot(ctx context.Context, key string) (StockSnapshot, error) {
	v, err := snapshotScript.Run(ctx, l.rdb, l.keys(key)).Slice()
	if err != nil || len(v) != 5 {
		return StockSnapshot{}, fmt.Errorf("redisnaive: snapshot %s: %v %w", key, v, err)
	}
	snap := StockSnapshot{Stock: -1, At: RedisTime(v[3], v[4])}
	if s, _ := v[0].(string); s != "" {
		if snap.Stock, err = strconv.ParseInt(s, 10, 64); err != nil {
			return snap, fmt.Errorf("redisnaive: snapshot %s: stock %q: %w", key, s, err)
		}
	}
	pairs, _ := v[1].([]any)
	for i := 0; i+1 < len(pairs); i += 2 {
		ticket, _ := pairs[i].(string)
		where, _ := pairs[i+1].(string)
		snap.InFlight = append(snap.InFlight, ticket)
		taken, sync := syncTakenAt(where)
		switch {
		case sync && snap.At.Sub(taken) > reserved.Stale:
			snap.Stale = append(snap.Stale, ticket)
		case !sync && snap.At.Sub(queuedAt(where)) > reserved.QueuedStale:
			snap.StaleQueued = append(snap.StaleQueued, ticket)
		}
	}
	snap.Returned, _ = v[2].(int64)
	return snap, nil
}

// syncTakenAt reads an in-flight value: sync is true for a unit taken for
// a synchronous order, taken is when (the zero time for the bare "s" of
// earlier versions, which kept no time: stale at once).
func syncTakenAt(where string) (taken time.Time, sync bool) {
	if where == "s" {
		return time.Time{}, true
	}
	ms, ok := strings.CutPrefix(where, "s:")
	if !ok {
		return time.Time{}, false // a queue entry: the consumers reclaim it
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return time.Time{}, true
	}
	return time.UnixMilli(n).UTC(), true
}

// queuedAt reads a queued ticket's in-flight value, its stream entry's id
// ("<ms>-<seq>", Redis's clock when it was queued); the zero time for a
// value that is not one (stale at once).
func queuedAt(entryID string) time.Time {
	ms, _, _ := strings.Cut(entryID, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(n).UTC()
}

// forgetScript drops a sale from the index once nothing is in flight.
// KEYS: in flight, index.
var forgetScript = redis.NewScript(`
if redis.call('HLEN', KEYS[1]) == 0 then return redis.call('ZREM', KEYS[2], KEYS[1]) end
return 0
`)

// SalesInFlight lists the sale keys of keyspace that had a synchronous unit
// in flight (the index); sales whose units are all settled leave it.
func (l *LuaStock) SalesInFlight(ctx context.Context, keyspace string) ([]string, error) {
	index := SyncIndexOf(keyspace)
	members, err := l.rdb.ZRange(ctx, index, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("redisnaive: sales in flight of %s: %w", keyspace, err)
	}
	var keys []string
	for _, inflight := range members {
		key, ok := strings.CutSuffix(inflight, ":inflight")
		if !ok {
			continue
		}
		if n, err := forgetScript.Run(ctx, l.rdb, []string{inflight, index}).Int64(); err == nil && n == 1 {
			continue // settled: left the index
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// NewTicket is a new random ticket naming a unit in flight: "ot_" +
// prefix + 32 hex digits.
func NewTicket(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return "ot_" + prefix + hex.EncodeToString(b[:])
}

// RedisTime reads TIME's two replies (seconds, microseconds) as returned by
// a script, strings or integers.
func RedisTime(sec, usec any) time.Time {
	toInt := func(v any) int64 {
		switch v := v.(type) {
		case int64:
			return v
		case string:
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
		return 0
	}
	return time.Unix(toInt(sec), toInt(usec)*1000).UTC()
}

// StockLeft is key's stock in Redis (the sum of its shards), for the sale
// view: -1 when it is not there (lost, being rebuilt).
func (l *LuaStock) StockLeft(ctx context.Context, key string) (int64, error) {
	snap, err := l.Snapshot(ctx, key)
	return snap.Stock, err
}
