package redisfifo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A lost reply must not re-run a script. When the connection died after
// the acquire script ran, go-redis's default MaxRetries re-sent it: it ran
// twice and queued the same waiter twice, and the second entry later
// receives the lock nobody waits for.
func TestAcquireNotResentAfterLostReply(t *testing.T) {
	addr, other := locktest.PrivateRedis(t)
	key := "retry-acquire"
	h := locktest.MustLock(t, New(other, lockstrategy.Options{TTL: 30 * time.Second}), key)
	defer h.Unlock(context.Background())

	c, proxy := locktest.CutClient(t, addr)
	l := New(c, lockstrategy.Options{TTL: 30 * time.Second})
	proxy.Armed.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := goLock(ctx, l, key)
	// Either Lock failed (the lost reply surfaced), or its acquire call
	// returned (retries included) and it waits queued.
	testenv.WaitFor(t, 10*time.Second, "the acquire call answered or failed", func() bool {
		if len(w) > 0 {
			return true
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		kw := l.waiting[key]
		return kw != nil && kw.listening
	})
	counts := map[string]int{}
	for _, id := range queued(other, key) {
		if strings.HasPrefix(id, l.proc+".") {
			counts[id]++
		}
	}
	for id, n := range counts {
		if n > 1 {
			t.Errorf("waiter %s is queued %d times: the acquire script was re-sent", id, n)
		}
	}
	cancel()
	<-w
}
