package locktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// PrivateRedis starts a Redis of the test's own (testenv.PrivateRedis: no
// persistence, DEBUG allowed) and returns its address and a plain client to
// it, closed at cleanup: for tests that crash it or cut its connections.
func PrivateRedis(t testing.TB) (string, *redis.Client) {
	t.Helper()
	addr := testenv.PrivateRedis(t, 1)[0]
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return addr, rdb
}

// CheckRegistered checks the registered metadata of each named Redis
// strategy (Safe, Tokens, Expiry) against want, and that it is unavailable
// without its backend.
func CheckRegistered(t *testing.T, want map[string]lockstrategy.Strategy) {
	t.Helper()
	for name, w := range want {
		s, err := lockstrategy.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Safe != w.Safe || s.Tokens != w.Tokens || s.Expiry != w.Expiry {
			t.Errorf("%s: Safe=%v Tokens=%v Expiry=%v, want %v %v %v", name, s.Safe, s.Tokens, s.Expiry,
				w.Safe, w.Tokens, w.Expiry)
		}
		if err := s.Available(lockstrategy.Backends{}); !errors.Is(err, lockstrategy.ErrMissingBackend) {
			t.Errorf("%s without Redis: %v, want ErrMissingBackend", name, err)
		}
	}
}

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
