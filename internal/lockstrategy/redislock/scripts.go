package redislock

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// The Lua scripts of the `redis` strategy. Each runs atomically in Redis,
// which is the whole point: the "check then act" pitfalls of a Redis lock
// (SETNX then EXPIRE, GET then DEL) disappear when the check and the act are one script.
//
// Keys of one lock key K (all share K as a prefix, so a cluster user can wrap
// K in a hash tag and keep them in one slot):
//
//	K           the lock: value = holder id, PX = ttl
//	K:fence     fencing counter, raised with every acquisition (next_token)
//	K:q         waiter ids in arrival order (LIST)
//	K:p:<proc>  a waiting process's heartbeat (PX WaiterLease)
//	K:n:<proc>  hand-overs to that process's waiters, "id token" (LIST)
//
// A holder or waiter id is "<proc>.<random>.<ttl ms>": proc names the
// Locker instance the waiter lives in (whose listener BLPOPs K:n:<proc>, and
// whose heartbeat says the waiter is alive), and the ttl travels with the id
// so that a release can hand the lock to a waiter built with another TTL.
// The scripts derive K:p:* and K:n:* from ids, so they do not declare every
// key they touch: fine on one Redis, not on a cluster (documented limit).

// keys names the Redis keys of one lock key.
type keys struct {
	lock, fence, queue string
	base               string // prefix of the derived per-process keys
}

func keysOf(key string) keys {
	return keys{lock: key, fence: key + ":fence", queue: key + ":q", base: key + ":"}
}

func (k keys) list() []string         { return []string{k.lock, k.fence, k.queue} }
func (k keys) notify(p string) string { return k.base + "n:" + p }
func (k keys) alive(p string) string  { return k.base + "p:" + p }

// Housekeeping lifetimes: the queue and a hand-over list outlive any live
// waiter's heartbeat by far, and vanish once every waiter is gone.
const (
	queueKeysTTL = 10 * time.Second
	notifyTTL    = 10 * time.Second
)

// luaPrelude holds what every queue script shares (Redis scripts cannot call
// each other, so it is prepended to each). KEYS: lock, fence, queue. ARGV:
// id, base, own proc, ttl ms, waiter lease ms, token stride.
//
// Every queue script replies with an array of 3 or 4 integers and strings,
// read by parseQueueReply into a queueReply:
//
//	[1] integer  result: what it means is the script's own (below)
//	[2] string   local id: a waiter of the CALLING process the lock was
//	             handed to ('' when none), delivered in memory by the caller
//	             rather than pushed through Redis (one round trip less on the
//	             critical path)
//	[3] integer  that waiter's fencing token (0 when none)
//	[4] integer  optional: how many ms before the script the lock was set for
//	             [2] (requeueScript and pollScript, when they report a lock
//	             already held), so that its lease clock starts no later
var luaPrelude = `
local lock, fence, queue = KEYS[1], KEYS[2], KEYS[3]
local id, base, me = ARGV[1], ARGV[2], ARGV[3]
local local_id, local_tok = '', 0

local function proc_of(w) return string.match(w, '^([^.]+)%.') end
local function alive_key(p) return base .. 'p:' .. p end

-- live_head drops waiters at the head whose process stopped heartbeating
-- (it died without leaving) and returns the first live one.
local function live_head()
  while true do
    local h = redis.call('LINDEX', queue, 0)
    if not h then return nil end
    if redis.call('EXISTS', alive_key(proc_of(h))) == 1 then return h end
    redis.call('LPOP', queue)
  end
end

-- next_token is the next fencing token. Redis here may restart without
-- persistence and lose the counter, so a token is never below the server's
-- clock in microseconds: tokens keep growing across restarts as long as the
-- server's clock does not go back (a 2^53 double holds it exactly).
local function next_token()
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local tok = math.max(tonumber(redis.call('GET', fence) or '0') + 1, now)
  -- ARGV[6], the stride: the holder may number stride holdings from tok
  -- (redis-2level's local hand-offs); the next acquisition starts above.
  redis.call('SET', fence, string.format('%d', tok + tonumber(ARGV[6] or '1') - 1))
  return tok
end

-- held_token is the token of the lock's current holder: the start of the
-- range its acquisition reserved (next_token), not the counter's top.
local function held_token()
  return tonumber(redis.call('GET', fence)) - tonumber(ARGV[6] or '1') + 1
end

-- hand_over gives the free lock to the head waiter h, with its own ttl and a
-- new fencing token, and wakes h alone: no herd, no barging, and h does not
-- need another round trip to take it.
local function hand_over(h)
  redis.call('LPOP', queue)
  redis.call('SET', lock, h, 'PX', tonumber(string.match(h, '%.(%d+)$')))
  local tok = next_token()
  local p = proc_of(h)
  if p == me then
    local_id, local_tok = h, tok
  else
    local nk = base .. 'n:' .. p
    redis.call('RPUSH', nk, h .. ' ' .. string.format('%d', tok))
    redis.call('PEXPIRE', nk, ` + ms(notifyTTL) + `)
  end
end

local function heartbeat() redis.call('SET', alive_key(me), '1', 'PX', ARGV[5]) end
`

func ms(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

// acquireScript: take the lock if it is free and nobody live is queued
// before us, else join the tail. A free lock with a live head (its holder
// expired or died without handing over) is handed to that head first.
//
// Reply: {token, "", 0} when id holds the lock (taken now, or already its
// own); {0, local id, local token} when id joined the queue, with the head
// this call handed a free lock to if that head is a local waiter.
var acquireScript = redis.NewScript(luaPrelude + `
local cur = redis.call('GET', lock)
if cur == id then return {held_token(), '', 0} end
if not cur then
  local h = live_head()
  if (not h) or h == id then
    if h then redis.call('LPOP', queue) end
    redis.call('SET', lock, id, 'PX', ARGV[4])
    return {next_token(), '', 0}
  end
  hand_over(h)
end
heartbeat()
redis.call('RPUSH', queue, id)
redis.call('PEXPIRE', queue, ` + ms(queueKeysTTL) + `)
return {0, local_id, local_tok}
`)

// requeueScript: make sure a waiter that was already enqueued still is (its
// process was taken for dead, or a hand-over reply was lost): re-joins the
// tail if it is not queued. The slow path: LPOS scans the queue.
//
// Reply: {token, "", 0, age ms} when the lock is in fact handed to id (age:
// how long ago it was set); {0, "", 0} when id waits in the queue.
var requeueScript = redis.NewScript(luaPrelude + `
if redis.call('GET', lock) == id then
  local age = tonumber(string.match(id, '%.(%d+)$')) - redis.call('PTTL', lock)
  return {held_token(), '', 0, age}
end
heartbeat()
if not redis.call('LPOS', queue, id) then
  redis.call('RPUSH', queue, id)
  redis.call('PEXPIRE', queue, ` + ms(queueKeysTTL) + `)
end
return {0, '', 0}
`)

// pollScript: a listener's heartbeat and the bounded fallback. A free lock
// (its holder expired or died without handing over) goes to the live head; a
// lock held by an id of this process is reported again, in case the reply
// that handed it over was lost (the listener ignores it when that id is not
// waiting any more). Called with an empty id.
//
// Reply: [1] is 1 if this process's heartbeat was still alive (0: its
// waiters may have been dropped, requeue them). {was, holder, token, age ms}
// when a local id holds the lock; else {was, local id, local token}, with
// the head a free lock was just handed to if it is a local waiter.
var pollScript = redis.NewScript(luaPrelude + `
local was = redis.call('EXISTS', alive_key(me))
heartbeat()
redis.call('PEXPIRE', queue, ` + ms(queueKeysTTL) + `) -- waiters live: so does their queue
local cur = redis.call('GET', lock)
if not cur then
  local h = live_head()
  if h then hand_over(h) end
elseif proc_of(cur) == me then
  -- and how long ago it was set, so that the lease clock starts no later
  local age = tonumber(string.match(cur, '%.(%d+)$')) - redis.call('PTTL', lock)
  return {was, cur, held_token(), age}
end
return {was, local_id, local_tok}
`)

// releaseScript: compare-and-delete (only the owner may release), then hand
// over to the first live waiter.
//
// Reply: {0, "", 0} when id did not hold the lock (nothing changed);
// {1, "", 0} when it is freed, nobody live waiting; {2, local id, local
// token} when it is handed over (local id "" if the new holder lives in
// another process).
var releaseScript = redis.NewScript(luaPrelude + `
if redis.call('GET', lock) ~= id then return {0, '', 0} end
local h = live_head()
if h then
  hand_over(h)
  return {2, local_id, local_tok}
end
redis.call('DEL', lock)
return {1, '', 0}
`)

// leaveScript: a waiter that gives up (ctx done, error) leaves the queue; if
// the lock was handed to it meanwhile it releases it, and a free lock goes
// to the next live waiter, so a leaving waiter never strands the queue.
//
// Reply: {released, local id, local token}: released is 1 if id held the
// lock and gave it up, 0 if it only left the queue (or was not in it); the
// local id is the next holder if the lock went to a local waiter.
var leaveScript = redis.NewScript(luaPrelude + `
redis.call('LREM', queue, 0, id)
local cur = redis.call('GET', lock)
local released = 0
if cur == id then
  redis.call('DEL', lock)
  released, cur = 1, false
end
if not cur then
  local h = live_head()
  if h then hand_over(h) end
end
return {released, local_id, local_tok}
`)

// renewScript: KEYS = lock; ARGV = id, ttl ms. The watchdog's owner-checked
// PEXPIRE: renewing a lock someone else now holds would extend THEIR lease
// (the no-owner pitfall again), so check first.
//
// Reply: an integer, 1 when id held the lock and its TTL is reset, 0 when
// someone else (or nobody) holds it.
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`)

// queueReply is a queue script's reply (layout at luaPrelude).
type queueReply struct {
	result   int64         // script-specific: a token, a status, a flag
	localID  string        // a waiter of this process the lock was handed to
	localTok uint64        // and its token
	localAge time.Duration // how long before the script the hand-over happened
}

// handOver is the reply's local hand-over, for a script started at start.
func (r queueReply) handOver(start time.Time) handOver {
	return handOver{token: r.localTok, since: start.Add(-r.localAge)}
}

// runQueue runs a queue script for waiter id (empty for the listener).
func (l *Locker) runQueue(ctx context.Context, s *redis.Script, k keys, id string) (queueReply, error) {
	v, err := l.runQueueRaw(ctx, s, k, id)
	if err != nil {
		return queueReply{}, err
	}
	return parseQueueReply(v)
}

// runQueueRaw runs a queue script and returns its reply as Redis sent it.
func (l *Locker) runQueueRaw(ctx context.Context, s *redis.Script, k keys, id string) ([]any, error) {
	return s.Run(ctx, l.rdb, k.list(), id, k.base, l.proc,
		l.ttl.Milliseconds(), WaiterLease.Milliseconds(), max(l.stride, 1)).Slice()
}

// parseQueueReply reads the reply layout documented at luaPrelude.
func parseQueueReply(v []any) (queueReply, error) {
	if len(v) < 3 {
		return queueReply{}, fmt.Errorf("redislock: unexpected script reply %v", v)
	}
	var r queueReply
	r.result, _ = v[0].(int64)
	r.localID, _ = v[1].(string)
	tok, _ := v[2].(int64)
	r.localTok = uint64(tok)
	if len(v) > 3 {
		age, _ := v[3].(int64)
		r.localAge = time.Duration(max(age, 0)) * time.Millisecond
	}
	return r, nil
}

// holderID is a new waiter/holder id of process proc.
func holderID(proc string, ttl time.Duration) string {
	return proc + "." + lockstrategy.NewOwner()[:16] + "." + ms(ttl)
}
