package orderqueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
)

// Errors of Enqueue.
var (
	ErrSoldOut      = errors.New("orderqueue: sold out")
	ErrLimitReached = errors.New("orderqueue: per-user limit reached")
)

// enqueueScript takes one unit and queues its order in one step: either
// both happen or neither, so no unit is taken for an order that is not
// queued, and no order is queued without its unit.
// KEYS: stock, epoch, reloading, in flight, buyers, idem, accepted, stream.
// ARGV: marker ttl ms, ticket, sale, user, idem field (” none), per-user
// limit (0 none), idempotency key.
// Returns {code, ticket, µs}: 1 queued, 2 a replay (the key's ticket), 0 sold
// out, -4 limit, -2 stock being rebuilt, -3 lost and this caller rebuilds it.
var enqueueScript = redis.NewScript(`
if ARGV[5] ~= '' then
  local t = redis.call('HGET', KEYS[6], ARGV[5])
  if t then return {2, t, ''} end
end
local s = redis.call('GET', KEYS[1])
if not s then
  if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[1]) then return {-3, '', ''} end
  return {-2, '', ''}
end
if tonumber(s) <= 0 then return {0, '', ''} end
local lim = tonumber(ARGV[6])
if lim > 0 and tonumber(redis.call('HGET', KEYS[5], ARGV[4]) or '0') >= lim then return {-4, '', ''} end
redis.call('DECR', KEYS[1])
if lim > 0 then redis.call('HINCRBY', KEYS[5], ARGV[4], 1) end
local t = redis.call('TIME')
local at = t[1] .. string.format('%06d', tonumber(t[2]))
local id = redis.call('XADD', KEYS[8], '*', 'ticket', ARGV[2], 'sale', ARGV[3], 'user', ARGV[4], 'idem', ARGV[7], 'at', at)
redis.call('HSET', KEYS[4], ARGV[2], id)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[6], ARGV[5], ARGV[2]) end
redis.call('INCR', KEYS[7])
return {1, ARGV[2], at}
`)

// Request is one order to queue.
type Request struct {
	SaleID         uint64
	SaleKey        string // the sale's lock key (order.Service.LockKey)
	UserID         string
	IdempotencyKey string // "" for none
	PerUserLimit   int    // 0: none
}

// Accepted is a queued order: its ticket, when Redis took the unit, and
// whether it replays an earlier request with the same idempotency key.
type Accepted struct {
	Ticket     string
	AcceptedAt time.Time
	Replayed   bool
}

// Queue is the producer side: it queues orders on the default Redis.
type Queue struct {
	rdb    *redis.Client
	stream string
}

// New returns the queue of keyspace on rdb.
func New(rdb *redis.Client, keyspace string) *Queue {
	return &Queue{rdb: rdb, stream: StreamKey(keyspace)}
}

// Stream is the stream's key.
func (q *Queue) Stream() string { return q.stream }

// Enqueue takes a unit and queues the order. Errors: ErrSoldOut,
// ErrLimitReached, lockstrategy.ErrStockReloading (or ...Claimed: the
// caller rebuilds the stock), or Redis's.
func (q *Queue) Enqueue(ctx context.Context, r Request) (Accepted, error) {
	k := keysOf(r.SaleKey)
	idem := ""
	if r.IdempotencyKey != "" {
		idem = r.UserID + "\x00" + r.IdempotencyKey
	}
	ticket := NewTicket(r.SaleID)
	v, err := enqueueScript.Run(ctx, q.rdb,
		[]string{k.Stock, k.Epoch, k.Reloading, k.InFlight, k.Buyers, k.Idem, k.Accepted, q.stream},
		lockstrategy.StockReloadSettle.Milliseconds()*4, ticket, r.SaleID, r.UserID, idem, r.PerUserLimit, r.IdempotencyKey).Slice()
	if err != nil {
		return Accepted{}, fmt.Errorf("orderqueue: enqueue: %w", err)
	}
	if len(v) != 3 {
		return Accepted{}, fmt.Errorf("orderqueue: enqueue: unexpected reply %v", v)
	}
	code, _ := v[0].(int64)
	got, _ := v[1].(string)
	at, _ := v[2].(string)
	switch code {
	case 1:
		return Accepted{Ticket: got, AcceptedAt: microsTime(at)}, nil
	case 2:
		return Accepted{Ticket: got, Replayed: true}, nil
	case 0:
		return Accepted{}, ErrSoldOut
	case -4:
		return Accepted{}, ErrLimitReached
	case -3:
		return Accepted{}, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloadClaimed, r.SaleKey)
	case -2:
		return Accepted{}, fmt.Errorf("%w: %s", lockstrategy.ErrStockReloading, r.SaleKey)
	}
	return Accepted{}, fmt.Errorf("orderqueue: enqueue: unexpected code %d", code)
}

// microsTime reads the scripts' "seconds and six digits of µs" clock.
func microsTime(s string) time.Time {
	if len(s) < 7 {
		return time.Time{}
	}
	return redislock.RedisTime(s[:len(s)-6], s[len(s)-6:])
}
