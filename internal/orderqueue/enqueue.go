package orderqueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
)

// Errors of Enqueue.
var (
	ErrSoldOut      = errors.New("orderqueue: sold out")
	ErrLimitReached = errors.New("orderqueue: per-user limit reached")
)

// enqueueScript takes one unit and queues its order in one step, for
// each request of a batch of one sale in turn: either both happen or
// neither, so no unit is taken for an order that is not queued, and no
// order is queued without its unit. One call answers the whole batch: the
// stock is read once and counted down here, the buyers' counts and keys
// are kept as the batch goes, and every write but the stream's is made
// once at the end, for the batch (a script runs alone: nothing else sees
// the keys in between).
// KEYS: stock, epoch, reloading, in flight, buyers, idem, accepted, stream.
// ARGV: marker ttl ms, sale, per-user limit (0 none), then per request:
// ticket, user, idem field (empty: none), idempotency key.
// Returns {code, ticket, µs} per request: 1 queued, 2 a replay (the key's
// ticket), 0 sold out, -4 limit, -2 stock being rebuilt, -3 lost and this
// caller rebuilds it.
var enqueueScript = redis.NewScript(`
local lim = tonumber(ARGV[3])
local t = redis.call('TIME')
local at = t[1] .. string.format('%06d', tonumber(t[2]))
local s = redis.call('GET', KEYS[1])
local left = s and tonumber(s)
local out, queued, inflight, idems, bought, counts = {}, 0, {}, {}, {}, {}
local function answer(code, ticket, when)
  out[#out + 1] = code; out[#out + 1] = ticket; out[#out + 1] = when
end
for b = 4, #ARGV, 4 do
  local ticket, user, idemf, idemk = ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 3]
  local replay = idemf ~= '' and (idems[idemf] or redis.call('HGET', KEYS[6], idemf))
  if replay then answer(2, replay, '')
  elseif not left then
    if redis.call('SET', KEYS[3], '1', 'NX', 'PX', ARGV[1]) then answer(-3, '', '') else answer(-2, '', '') end
  elseif left <= 0 then answer(0, '', '')
  else
    if lim > 0 and not counts[user] then counts[user] = tonumber(redis.call('HGET', KEYS[5], user) or '0') end
    if lim > 0 and counts[user] >= lim then answer(-4, '', '')
    else
      left = left - 1
      if lim > 0 then counts[user] = counts[user] + 1; bought[user] = counts[user] end
      local id = redis.call('XADD', KEYS[8], '*', 'ticket', ticket, 'sale', ARGV[2], 'user', user, 'idem', idemk, 'at', at)
      inflight[#inflight + 1] = ticket; inflight[#inflight + 1] = id
      if idemf ~= '' then idems[idemf] = ticket end
      queued = queued + 1
      answer(1, ticket, at)
    end
  end
end
if queued > 0 then
  redis.call('DECRBY', KEYS[1], queued)
  redis.call('INCRBY', KEYS[7], queued)
  redis.call('HSET', KEYS[4], unpack(inflight))
  local pairs_ = {}
  for u, n in pairs(bought) do pairs_[#pairs_ + 1] = u; pairs_[#pairs_ + 1] = n end
  if #pairs_ > 0 then redis.call('HSET', KEYS[5], unpack(pairs_)) end
  pairs_ = {}
  for f, tk in pairs(idems) do pairs_[#pairs_ + 1] = f; pairs_[#pairs_ + 1] = tk end
  if #pairs_ > 0 then redis.call('HSET', KEYS[6], unpack(pairs_)) end
end
return out
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
	// accepts runs the accepts of one sale gathered on this replica as one
	// script call (acceptbatch.go).
	accepts *gather.Gatherer[string, pendingAccept, Accepted]
}

// New returns the queue of keyspace on rdb.
func New(rdb *redis.Client, keyspace string) *Queue {
	q := &Queue{rdb: rdb, stream: StreamKey(keyspace)}
	q.accepts = &gather.Gatherer[string, pendingAccept, Accepted]{MaxBatch: acceptBatch, MaxWait: acceptWait, Run: q.acceptBatch}
	return q
}

// Stream is the stream's key.
func (q *Queue) Stream() string { return q.stream }

// Enqueue takes a unit and queues the order, in one script call with the
// other accepts of the sale gathered on this replica. Errors: ErrSoldOut,
// ErrLimitReached, lockstrategy.ErrStockReloading (or ...Claimed: the
// caller rebuilds the stock), or Redis's (then for the whole batch).
func (q *Queue) Enqueue(ctx context.Context, r Request) (Accepted, error) {
	return q.accepts.Do(ctx, r.SaleKey, pendingAccept{ctx: ctx, r: r, ticket: NewTicket(r.SaleID)})
}

// answerOf reads one request's {code, ticket, µs} of the script's reply.
func answerOf(r Request, code int64, got, at string) (Accepted, error) {
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
	return redisstock.RedisTime(s[:len(s)-6], s[len(s)-6:])
}
