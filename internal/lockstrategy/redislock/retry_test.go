package redislock

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

// TestAcquireWhoseReplyWasLostChecksItsOwnToken: a retry that checks first. The
// acquire ran on a free lock, its reply was lost with the connection; the
// client must look for its own token before trying again, or it waits for
// its own lock until the TTL (30 s here). It holds the lock at once, the
// lock excludes others, and its Unlock frees it.
func TestAcquireWhoseReplyWasLostChecksItsOwnToken(t *testing.T) {
	addr, other := locktest.PrivateRedis(t)
	key := "retry-own-token"
	c, proxy := locktest.CutClient(t, addr)
	l := New(c, lockstrategy.Options{TTL: 30 * time.Second})
	proxy.Armed.Store(true) // the next reply, the acquire's, is lost
	le, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatalf("Lock after an acquire whose reply was lost: %v (waiting for its own lock?)", err)
	}
	if proxy.Armed.Load() {
		t.Fatal("no reply was dropped: the test did not lose the acquire's reply")
	}
	o := New(other, lockstrategy.Options{TTL: 30 * time.Second})
	if le2, err := locktest.LockWithin(o, key, 300*time.Millisecond); err == nil {
		le2.Unlock(context.Background())
		t.Fatal("another client took the lock the first holds")
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	le2, err := locktest.LockWithin(o, key, 5*time.Second)
	if err != nil {
		t.Fatalf("after the Unlock: %v (a second copy of the first client's claim left behind?)", err)
	}
	locktest.Unlock(le2)
}
