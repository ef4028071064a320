package redisnaive

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
)

// A re-sent SETNX (its reply lost with the connection)
// found the key its first copy had set, answered "taken", and
// redis-setnx-expire polled on a key it held itself, which has no TTL yet:
// abandoned for ever.
func TestSetNXNotAbandonedAfterLostReply(t *testing.T) {
	addr, other := locktest.PrivateRedis(t)
	key := "retry-setnx"
	c, proxy := locktest.CutClient(t, addr)
	l := NewSetNXExpire(c, 5*time.Second)
	proxy.Armed.Store(true)
	le, err := (func() (lockstrategy.Lease, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return l.Lock(ctx, key)
	})()
	if err != nil {
		ttl, _ := other.PTTL(context.Background(), key).Result()
		t.Fatalf("Lock after a SETNX whose reply was lost: %v (the key's PTTL is %v: -1 means set, without a TTL, and held by nobody)", err, ttl)
	}
	if ttl, _ := other.PTTL(context.Background(), key).Result(); ttl <= 0 {
		t.Errorf("the lock is held without a TTL (PTTL %v)", ttl)
	}
	if err := le.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}
