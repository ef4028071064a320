// Package redisnaive holds the naive locks over one Redis that the seeds
// warn about, each keeping one classic pitfall: redis-setnx-expire (SETNX
// then EXPIRE as two commands), redis-no-owner (a release by plain DEL) and
// redis-getset (expiry times compared on the clients' clocks, getset.go).
// The safe `redis` lock, with its FIFO wait, is package redislock; the
// lock-free redis-lua-stock is package redisstock.
package redisnaive

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// DefaultTTL is the teaching variants' lease TTL when a sale sets none: the
// same as the `redis` strategy's, so that only the pitfall differs.
const DefaultTTL = 2 * time.Second

// cleanupTimeout bounds the clean-up of a key an acquisition gave up on; it
// runs on a fresh ctx because the caller's is usually the one that ended.
const cleanupTimeout = 2 * time.Second

// drift is how much earlier than the TTL a holder must assume its lease gone.
func drift(ttl time.Duration) time.Duration { return lockstrategy.Drift(ttl) }

// compareAndDeleteScript: KEYS = lock; ARGV = owner. The plain owner-checked
// release of the teaching variants that have an owner.
//
// Reply: an integer, 1 when owner held the lock and it is deleted, 0 when
// someone else (or nobody) holds it and nothing changed.
var compareAndDeleteScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)
