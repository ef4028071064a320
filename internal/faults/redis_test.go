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

// restart_redis on a private Redis: a key set before is gone after, the node
// answers again under a new run_id; the other node is untouched.
func TestRestartRedis(t *testing.T) {
	addrs := testenv.PrivateRedis(t, 2)
	f := faults.New(faults.Config{Enabled: true, RedisAddr: addrs[0], RedlockAddrs: addrs[1:]}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	clients := make([]*redis.Client, len(addrs))
	for i, a := range addrs {
		clients[i] = redis.NewClient(&redis.Options{Addr: a})
		t.Cleanup(func() { clients[i].Close() })
		if err := clients[i].Set(ctx, "lock", "holder", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}

	r, err := f.RestartRedis(ctx, "redlock-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	if r.Node != "redlock-1" || r.Addr != addrs[1] || r.RunIDBefore == "" || r.RunIDAfter == "" || r.RunIDBefore == r.RunIDAfter {
		t.Fatalf("restart: %+v", r)
	}
	if n, err := clients[1].Exists(ctx, "lock").Result(); err != nil || n != 0 {
		t.Fatalf("after the restart the key exists=%d (%v), want gone", n, err)
	}
	if v, err := clients[0].Get(ctx, "lock").Result(); err != nil || v != "holder" {
		t.Fatalf("the other node lost its key: %q %v", v, err)
	}

	if r, err = f.RestartRedis(ctx, "redis"); err != nil || r.Addr != addrs[0] {
		t.Fatalf("restart redis: %+v %v", r, err)
	}
	if n, err := clients[0].Exists(ctx, "lock").Result(); err != nil || n != 0 {
		t.Fatalf("after the restart the key exists=%d (%v), want gone", n, err)
	}

	for _, node := range []string{"redlock-2", "redlock-0", "redlock-01", "redis-1", ""} {
		if _, err := f.RestartRedis(ctx, node); !errors.Is(err, faults.ErrUnknownNode) {
			t.Errorf("node %q: %v, want ErrUnknownNode", node, err)
		}
	}
	if _, err := faults.New(faults.Config{RedisAddr: addrs[0]}, nil).RestartRedis(ctx, "redis"); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled: %v, want ErrDisabled", err)
	}
}

// A node that is down is a clear error naming the node and its address.
func TestRestartRedisDown(t *testing.T) {
	const addr = "127.0.0.1:1" // nothing listens on port 1
	f := faults.New(faults.Config{Enabled: true, RedisAddr: addr}, nil)
	_, err := f.RestartRedis(context.Background(), "redis")
	if !errors.Is(err, faults.ErrRedisRestart) {
		t.Fatalf("%v, want ErrRedisRestart", err)
	}
	t.Log(err)
}
