package faultpoint_test

import (
	"context"
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// The drop_reply hook: the armed script runs on Redis, its caller sees a
// transport error; the next script is untouched, and so is a script on
// another key meanwhile.
func TestReplyDropperLosesOneReply(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	d := &faultpoint.ReplyDropper{}
	c := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr})
	t.Cleanup(func() { c.Close() })
	c.AddHook(d)
	ctx := context.Background()
	set := redis.NewScript("return redis.call('incr', KEYS[1])")
	d.Arm(key)
	if err := set.Run(ctx, c, []string{key + "x"}).Err(); err != nil { // another key: untouched
		t.Fatal(err)
	}
	err := set.Run(ctx, c, []string{key}).Err()
	if !lockstrategy.IsTransport(err) || !errors.Is(err, faultpoint.ErrReplyDropped) {
		t.Fatalf("armed script: %v, want a transport error (reply dropped)", err)
	}
	if n := rdb.Get(ctx, key).Val(); n != "1" {
		t.Fatalf("the script whose reply was lost did not run: %q", n)
	}
	if n, err := set.Run(ctx, c, []string{key}).Int(); err != nil || n != 2 {
		t.Fatalf("the next script: %d, %v (the fault is one reply)", n, err)
	}
	if n := d.Dropped(); n != 1 {
		t.Fatalf("%d replies counted as dropped, want 1", n)
	}
	rdb.Del(ctx, key+"x")
}
