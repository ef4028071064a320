package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// freeze_redis on a private Redis: the node answers nothing while frozen,
// then answers again with its keys; the other node never stops.
func TestFreezeRedis(t *testing.T) {
	addrs := testenv.PrivateRedis(t, 2)
	f := faults.New(faults.Config{Enabled: true, RedisAddr: addrs[0], RedlockAddrs: addrs[1:]}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	frozen := redis.NewClient(&redis.Options{Addr: addrs[0], MaxRetries: -1, ReadTimeout: 200 * time.Millisecond})
	other := redis.NewClient(&redis.Options{Addr: addrs[1], MaxRetries: -1, ReadTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { frozen.Close(); other.Close() })
	if err := frozen.Set(ctx, "lock", "holder", 0).Err(); err != nil {
		t.Fatal(err)
	}
	addr, err := f.FreezeRedis(ctx, "redis", 2*time.Second)
	if err != nil || addr != addrs[0] {
		t.Fatalf("freeze: %s %v", addr, err)
	}
	if err := frozen.Get(ctx, "lock").Err(); err == nil {
		t.Fatal("the frozen node answered")
	}
	if err := other.Ping(ctx).Err(); err != nil {
		t.Fatalf("the other node: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := frozen.Get(ctx, "lock").Result()
		if err == nil && v == "holder" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not thawed with its key: %q %v", v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := f.FreezeRedis(ctx, "redlock-9", time.Second); !errors.Is(err, faults.ErrUnknownNode) {
		t.Errorf("unknown node: %v", err)
	}
}

// clock_jump_redis cuts the keys with a longer TTL to ms and leaves the
// others: the lock on that node expires early, a key without a TTL stays.
func TestClockJumpRedis(t *testing.T) {
	addrs := testenv.PrivateRedis(t, 1)
	f := faults.New(faults.Config{Enabled: true, RedlockAddrs: addrs}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: addrs[0]})
	t.Cleanup(func() { c.Close() })
	for key, ttl := range map[string]time.Duration{"lock": time.Minute, "short": time.Millisecond * 500, "forever": 0} {
		if err := c.Set(ctx, key, "x", ttl).Err(); err != nil {
			t.Fatal(err)
		}
	}
	_, cut, err := f.JumpRedisClock(ctx, "redlock-1", 600*time.Millisecond)
	if err != nil || cut != 1 {
		t.Fatalf("cut %d keys, %v; want 1 (lock)", cut, err)
	}
	if ttl := c.PTTL(ctx, "lock").Val(); ttl > 600*time.Millisecond || ttl <= 0 {
		t.Errorf("lock's PTTL %v after the jump, want at most 600ms", ttl)
	}
	if ttl := c.PTTL(ctx, "forever").Val(); ttl != -1 {
		t.Errorf("forever's PTTL %v, want none (-1)", ttl)
	}
}
