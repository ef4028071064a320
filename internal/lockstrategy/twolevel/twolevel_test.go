package twolevel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

const wait = 10 * time.Second // generous: nothing here is timed

func TestRegistered(t *testing.T) {
	locktest.CheckRegistered(t, map[string]lockstrategy.Strategy{
		"redis-2level": {Safe: true, Tokens: true, Expiry: lockstrategy.ExpiryTTL},
	})
}

// queued starts a Lock on l in a goroutine once the previous ones are
// queued (observed in the key's state), so the queue order is known.
func queued(t *testing.T, l *Locker, key string, n int) chan lockstrategy.Lease {
	t.Helper()
	got := make(chan lockstrategy.Lease, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		le, err := l.Lock(ctx, key)
		if err != nil {
			t.Errorf("waiter %d: %v", n, err)
			close(got)
			return
		}
		got <- le
	}()
	waitFor(t, func() bool { return l.queueLen(key) == n })
	return got
}

// redisKey is a fresh key whose redis-2level keys are removed afterwards.
func redisKey(t *testing.T) (*redis.Client, string) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	t.Cleanup(func() {
		ctx := context.Background()
		rdb.Del(ctx, keyPrefix+key, keyPrefix+key+":fence", keyPrefix+key+":q")
	})
	return rdb, key
}

func (l *Locker) queueLen(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if k := l.keys[key]; k != nil {
		return len(k.queue)
	}
	return 0
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func receive(t *testing.T, ch chan lockstrategy.Lease) lockstrategy.Lease {
	t.Helper()
	select {
	case le, ok := <-ch:
		if !ok {
			t.FailNow()
		}
		return le
	case <-time.After(wait):
		t.Fatal("no lease")
		return nil
	}
}

// Local waiters are served in arrival order by hand-off, one distributed
// holding for all, with tokens t, t+1, ...; past the bound the lock goes
// back to Redis and another process's waiter, queued there, gets it next.
func TestHandOffInOrderUpToTheBoundThenToAnotherProcess(t *testing.T) {
	rdb, key := redisKey(t)
	a, b := New(rdb, lockstrategy.Options{}), New(rdb, lockstrategy.Options{})
	first := locktest.MustLock(t, a, key)
	var local []chan lockstrategy.Lease
	for i := 1; i <= MaxHandOffs+1; i++ {
		local = append(local, queued(t, a, key, i))
	}
	// b's contender waits in Redis's FIFO behind a's distributed holding.
	other := make(chan lockstrategy.Lease, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		le, err := b.Lock(ctx, key)
		if err != nil {
			t.Errorf("other process: %v", err)
			close(other)
			return
		}
		other <- le
	}()
	waitFor(t, func() bool { return rdb.LLen(context.Background(), keyPrefix+key+":q").Val() == 1 })

	prev := first
	for i := range MaxHandOffs {
		if err := prev.Unlock(context.Background()); err != nil {
			t.Fatal(err)
		}
		le := receive(t, local[i])
		if le.Token() != first.Token()+uint64(i+1) {
			t.Fatalf("hand-off %d: token %d, want %d", i+1, le.Token(), first.Token()+uint64(i+1))
		}
		prev = le
	}
	// The bound is reached: the last local waiter must not get it before b.
	if err := prev.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	ob := receive(t, other)
	if ob.Token() <= prev.Token() {
		t.Fatalf("other process token %d after local %d: not monotonic", ob.Token(), prev.Token())
	}
	select {
	case <-local[MaxHandOffs]:
		t.Fatal("the last local waiter got the lock while the other process held it")
	default:
	}
	if err := ob.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := receive(t, local[MaxHandOffs])
	if last.Token() <= ob.Token() {
		t.Fatalf("token %d after %d: not monotonic", last.Token(), ob.Token())
	}
	if err := last.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A lost distributed lease is every local holder's: Lost closes, no
// hand-off follows it, and the next waiter acquires afresh, with a token
// above the reserved ones.
func TestLostLeaseStopsHandOffs(t *testing.T) {
	rdb, key := redisKey(t)
	l := New(rdb, lockstrategy.Options{TTL: 300 * time.Millisecond, NoRenewal: true})
	first := locktest.MustLock(t, l, key)
	next := queued(t, l, key, 1)
	select {
	case <-first.Lost():
	case <-time.After(wait):
		t.Fatal("Lost did not close after the TTL without renewal")
	}
	if err := first.Unlock(context.Background()); !errors.Is(err, lockstrategy.ErrNotHeld) && err != nil {
		t.Fatalf("Unlock after loss: %v", err)
	}
	le := receive(t, next)
	if le.Token() <= first.Token()+MaxHandOffs {
		t.Fatalf("token %d: a hand-off of the lost holding (first %d), not a new acquisition", le.Token(), first.Token())
	}
	if isClosed(le.Lost()) {
		t.Fatal("the new holding is lost already")
	}
	locktest.Unlock(le)
}

// A waiter whose ctx ends leaves the queue, and one granted the lock as its
// ctx ended passes it on: the next waiter is served, nothing stays held.
func TestCancelledWaitersLeakNothing(t *testing.T) {
	rdb, key := redisKey(t)
	l := New(rdb, lockstrategy.Options{})
	holder := locktest.MustLock(t, l, key)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.Lock(ctx, key)
		done <- err
	}()
	waitFor(t, func() bool { return l.queueLen(key) == 1 })
	after := queued(t, l, key, 2)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	if err := holder.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	le := receive(t, after)
	locktest.Unlock(le)
	waitFor(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.keys) == 0
	})
	if n := rdb.Exists(context.Background(), keyPrefix+key).Val(); n != 0 {
		t.Fatal("the distributed lock is still held after the last Unlock")
	}
}

// A double Unlock is refused and frees nothing of the next holder's.
func TestDoubleUnlockIsRefused(t *testing.T) {
	rdb, key := redisKey(t)
	l := New(rdb, lockstrategy.Options{})
	first := locktest.MustLock(t, l, key)
	next := queued(t, l, key, 1)
	if err := first.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := receive(t, next)
	third := queued(t, l, key, 1)
	if err := first.Unlock(context.Background()); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("second Unlock: %v, want ErrNotHeld", err)
	}
	if n := l.queueLen(key); n != 1 { // a hand-off happens inside Unlock: it would show here
		t.Fatalf("a double Unlock handed the lock on (%d queued, want 1)", n)
	}
	locktest.Unlock(second)
	locktest.Unlock(receive(t, third))
}
