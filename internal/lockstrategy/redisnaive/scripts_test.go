package redisnaive

import (
	"context"
	"testing"

	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// compareAndDeleteScript replies with the integer 1 when the owner held the
// key (now deleted) and 0 when someone else holds it (left alone).
func TestCompareAndDeleteReplyShape(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	key := locktest.RedisKey(t, rdb)
	rdb.Set(ctx, key, "owner", 0)
	for _, tc := range []struct {
		what, owner string
		want        int64
	}{{"by another owner", "intruder", 0}, {"by its owner", "owner", 1}, {"of a free key", "owner", 0}} {
		v, err := compareAndDeleteScript.Run(ctx, rdb, []string{key}, tc.owner).Result()
		if n, ok := v.(int64); err != nil || !ok || n != tc.want {
			t.Errorf("release %s: reply %v (%T), err %v; want the integer %d", tc.what, v, v, err, tc.want)
		}
	}
}
