package redislock

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Redis here runs without persistence, as the lab's
// restart_redis fault restarts it: every key is gone, the fencing counter
// too. A token after the restart must still be newer than every token
// before it, or a fenced sale rejects every new holder while a stale one
// with a high token gets through.
func TestFenceTokensSurviveRedisRestart(t *testing.T) {
	_, rdb := locktest.PrivateRedis(t)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	key := "fence-restart"
	var before uint64
	for range 20 {
		le := locktest.MustLock(t, l, key)
		before = max(before, le.Token())
		if err := le.Unlock(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = rdb.Do(ctx, "DEBUG", "CRASH-AND-RECOVER", "0").Err() // the connection drops with the server
	testenv.WaitFor(t, 30*time.Second, "the private Redis back, empty", func() bool {
		n, err := rdb.DBSize(ctx).Result()
		return err == nil && n == 0
	})
	le := locktest.MustLock(t, l, key)
	defer le.Unlock(context.Background())
	if le.Token() <= before {
		t.Fatalf("token %d after the restart, %d before it: fencing tokens went backwards", le.Token(), before)
	}
}
