package redisson

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A contender that meets another holder's hash in its last millisecond
// (PTTL 0) must wait, not take it: the chaos run found an order with
// fencing token 0 and a lost update, from a "free" answer {0, 0} that was
// the held lock's PTTL rounded down to 0.
func TestALockInItsLastMillisecondIsNotFree(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{})
	k := keysOf(key)
	t.Cleanup(func() { rdb.Del(context.Background(), k.hash, k.token, k.fence) })
	ctx := context.Background()
	for i := range 200 {
		// Another holder's hash with 1 ms left, then our acquire at once.
		if err := rdb.Eval(ctx, "redis.call('hset', KEYS[1], 'other', 1); redis.call('pexpire', KEYS[1], 1)", []string{k.hash}).Err(); err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		le, _, err := l.try(ctx, k, "me")
		if err != nil {
			t.Fatal(err)
		}
		if le == nil {
			continue // waits: right
		}
		if le.Token() == 0 {
			t.Fatalf("round %d: acquired with token 0 while another holder's hash had 1 ms left", i)
		}
		if owner, _ := rdb.HExists(ctx, k.hash, "me").Result(); !owner {
			t.Fatalf("round %d: told it holds the lock, but the hash is not ours", i)
		}
		if err := le.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A Redis restarted without persistence loses the fence counter with the
// lock: the next token must still be above every earlier one (the server's
// clock in µs), or every holder after the restart is fenced by the sale's
// fence until the counter catches up.
func TestTokensGrowAcrossALostCounter(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{})
	k := keysOf(key)
	t.Cleanup(func() { rdb.Del(context.Background(), k.hash, k.token, k.fence) })
	first := locktest.MustLock(t, l, key)
	locktest.Unlock(first)
	rdb.Del(context.Background(), k.fence) // what a restart without persistence does
	second := locktest.MustLock(t, l, key)
	defer locktest.Unlock(second)
	if second.Token() <= first.Token() {
		t.Fatalf("token %d after the counter was lost, first %d: not growing", second.Token(), first.Token())
	}
}
