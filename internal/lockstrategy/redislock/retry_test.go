package redislock

import (
	"context"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// cutProxy forwards TCP connections to upstream. Once armed, it lets the
// next request through to Redis but drops its reply and closes the client's
// connection: the command ran, the client only saw the connection die (as
// with a cut cable or a proxy restart), the case where go-redis re-sends.
type cutProxy struct {
	addr  string
	armed atomic.Bool
}

func newCutProxy(t *testing.T, upstream string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &cutProxy{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, upstream)
		}
	}()
	return p
}

func (p *cutProxy) serve(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go io.Copy(u, c)
	buf := make([]byte, 64<<10)
	for {
		n, err := u.Read(buf)
		if err != nil {
			return
		}
		if p.armed.CompareAndSwap(true, false) {
			return // the reply is dropped, both connections close
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

// lockClient is a client through a cutProxy to the private Redis at addr,
// with the options the shop gives its lock clients.
func lockClient(t *testing.T, addr string) (*redis.Client, *cutProxy) {
	t.Helper()
	p := newCutProxy(t, addr)
	c := redis.NewClient(lockstrategy.RedisOptions(p.addr, 16))
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return c, p
}

// Issue 10, defect 6. When the connection died after the acquire script
// ran, go-redis re-sent it (its default MaxRetries): it ran twice and queued
// the same waiter twice, and the second entry later receives the lock
// nobody waits for.
func TestAcquireNotResentAfterLostReply(t *testing.T) {
	addr := testenv.PrivateRedis(t, 1)[0]
	other := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { other.Close() })
	key := "retry-acquire"
	h := mustLock(t, New(other, lockstrategy.Options{TTL: 30 * time.Second}), key)
	defer h.Unlock(context.Background())

	c, proxy := lockClient(t, addr)
	l := New(c, lockstrategy.Options{TTL: 30 * time.Second})
	proxy.armed.Store(true)
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

// Issue 10, defect 6: a re-sent SETNX (its reply lost with the connection)
// found the key its first copy had set, answered "taken", and
// redis-setnx-expire polled on a key it held itself, which has no TTL yet:
// abandoned for ever.
func TestSetNXNotAbandonedAfterLostReply(t *testing.T) {
	addr := testenv.PrivateRedis(t, 1)[0]
	other := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { other.Close() })
	key := "retry-setnx"
	c, proxy := lockClient(t, addr)
	l := NewSetNXExpire(c, 5*time.Second)
	proxy.armed.Store(true)
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
