package locktest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// RedisKey returns a lock key no other run uses, and deletes it and every key
// derived from it (fence, queue, wake-ups, stock) at cleanup.
func RedisKey(t testing.TB, rdb *redis.Client) string {
	t.Helper()
	name := strings.NewReplacer("/", ":", " ", "_").Replace(t.Name())
	key := fmt.Sprintf("redislock-test:%s:%d", name, time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		keys, _ := rdb.Keys(ctx, key+"*").Result()
		if len(keys) > 0 {
			rdb.Del(ctx, keys...)
		}
	})
	return key
}

// MustLock takes key within 5 s or fails the test.
func MustLock(t testing.TB, l lockstrategy.Locker, key string) lockstrategy.Lease {
	t.Helper()
	le, err := LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatalf("lock %s: %v", key, err)
	}
	return le
}

// ClosedWithin reports whether ch closes within d.
func ClosedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// IsClosed reports whether ch is closed now.
func IsClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
