package redisson

import "github.com/redis/go-redis/v9"

// The lock is a hash of holder -> hold count, as Redisson's RLock keeps it;
// beside it the holding's fencing token (a string key with the hash's TTL)
// and the per-key fence counter. Written for this project after reading
// how Redisson's scripts behave, not copied.

// acquireScript: KEYS[1] hash, KEYS[2] token, KEYS[3] fence counter;
// ARGV[1] ttl ms, ARGV[2] holder. Free: the holder's count is 1 and a new
// token is drawn. Ours: the count grows, the TTL is set again, the token is
// the holding's. Someone else's: {PTTL, 0}, how long to wait at most.
var acquireScript = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 0 then
  redis.call('hset', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  local t = redis.call('incr', KEYS[3])
  redis.call('set', KEYS[2], t, 'px', ARGV[1])
  return {0, t}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  redis.call('pexpire', KEYS[2], ARGV[1])
  return {0, tonumber(redis.call('get', KEYS[2]) or '0')}
end
return {redis.call('pttl', KEYS[1]), 0}
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
