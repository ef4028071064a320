package redisson

import "github.com/redis/go-redis/v9"

// The lock is a hash of holder -> hold count, as Redisson's RLock keeps it;
// beside it the holding's fencing token (a string key with the hash's TTL)
// and the per-key fence counter. Written for this project after reading
// how Redisson's scripts behave, not copied.

// acquireScript: KEYS[1] hash, KEYS[2] token, KEYS[3] fence counter;
// ARGV[1] ttl ms, ARGV[2] holder. Replies {status, n}. Free: status 0, the
// holder's count is 1 and n a new token. Ours: status 0, the count grows,
// the TTL is set again, n is the holding's token. Someone else's: status 1,
// n its PTTL (how long to wait at most; 0 in its last millisecond, which is
// why the status is apart from it: a PTTL of 0 once read as "acquired, token
// 0"). Ours but its token gone (it cannot be, short of an eviction): status 2.
//
// The token is the fence counter + 1, but never below the server's clock in
// microseconds: the counter dies with a Redis restarted without persistence,
// and tokens that started again from 1 would all be fenced by the sale's
// fence until they passed it (redisfifo's next_token does the same).
var acquireScript = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 0 then
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  local now = redis.call('time')
  local t = math.max(tonumber(redis.call('get', KEYS[3]) or '0') + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
  redis.call('set', KEYS[3], string.format('%d', t))
  redis.call('set', KEYS[2], string.format('%d', t), 'px', ARGV[1])
  return {0, t}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  local t = redis.call('get', KEYS[2])
  if not t then return {2, 0} end
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  redis.call('pexpire', KEYS[2], ARGV[1])
  return {0, tonumber(t)}
end
return {1, redis.call('pttl', KEYS[1])}
`)

// releaseScript: KEYS[1] hash, KEYS[2] token, KEYS[3] unlock channel;
// ARGV[1] holder, ARGV[2] ttl ms. -1: not ours (expired, taken since);
// n > 0: still held n times; 0: freed, and the waiters told.
var releaseScript = redis.NewScript(`
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return -1
end
local n = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if n > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('pexpire', KEYS[2], ARGV[2])
  return n
end
redis.call('del', KEYS[1], KEYS[2])
redis.call('publish', KEYS[3], 'unlock')
return 0
`)

// renewScript: KEYS[1] hash, KEYS[2] token; ARGV[1] ttl ms, ARGV[2]
// holder. 1 when the hash is still ours and its TTL was set again.
var renewScript = redis.NewScript(`
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  redis.call('pexpire', KEYS[2], ARGV[1])
  return 1
end
return 0
`)
