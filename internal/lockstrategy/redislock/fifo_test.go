package redislock

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// queued returns the waiter ids queued on key, head first.
func queued(rdb *redis.Client, key string) []string {
	return rdb.LRange(context.Background(), keysOf(key).queue, 0, -1).Val()
}

// enqueueFake queues a waiter of another process that has no listener and
// never heartbeats again: a process that died right after its waiter joined
// the queue (or, until WaiterLease passes, one that is merely silent).
func enqueueFake(t *testing.T, rdb *redis.Client, key string, ttl time.Duration) (*Locker, string) {
	t.Helper()
	fake := New(rdb, lockstrategy.Options{TTL: ttl})
	id := holderID(fake.proc, ttl)
	r, err := fake.runQueue(context.Background(), acquireScript, keysOf(key), id)
	if err != nil || r.result != 0 {
		t.Fatalf("fake waiter: token %d, err %v; want queued", r.result, err)
	}
	return fake, id
}

// deadAhead is a held lock with two waiters queued: first the waiter of a
// dead process (enqueueFake, with a shortTTL lease), then a live one.
type deadAhead struct {
	rdb    *redis.Client
	key    string
	holder lockstrategy.Lease
	fake   *Locker // the dead waiter's process
	dead   string  // the dead waiter's id
	live   <-chan lockResult
}

func queueBehindDeadWaiter(t *testing.T) deadAhead {
	t.Helper()
	q := deadAhead{rdb: testenv.Redis(t)}
	q.key = locktest.RedisKey(t, q.rdb)
	l := New(q.rdb, lockstrategy.Options{TTL: 5 * time.Second})
	q.holder = locktest.MustLock(t, l, q.key)
	q.fake, q.dead = enqueueFake(t, q.rdb, q.key, shortTTL)
	q.live = goLock(context.Background(), l, q.key)
	testenv.WaitFor(t, 5*time.Second, "live waiter queued behind the dead one", func() bool { return len(queued(q.rdb, q.key)) == 2 })
	return q
}

// goLock starts Lock in a goroutine; the lease or error arrives on the channel.
func goLock(ctx context.Context, l lockstrategy.Locker, key string) <-chan lockResult {
	ch := make(chan lockResult, 1)
	go func() {
		le, err := l.Lock(ctx, key)
		ch <- lockResult{le, err}
	}()
	return ch
}

type lockResult struct {
	le  lockstrategy.Lease
	err error
}

// awaitLock waits up to d for a goLock result that must be a lease.
func awaitLock(t *testing.T, ch <-chan lockResult, d time.Duration, who string) lockstrategy.Lease {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("%s: %v", who, r.err)
		}
		return r.le
	case <-time.After(d):
		t.Fatalf("%s: no lock within %v", who, d)
		return nil
	}
}

// Waiters that queue in a known order are served in that order.
func TestFIFOOrder(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := locktest.MustLock(t, l, key)
	const n = 8
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			le, err := locktest.LockWithin(l, key, 20*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			if err := locktest.Unlock(le); err != nil {
				t.Error(err)
			}
		}()
		testenv.WaitFor(t, 5*time.Second, "waiter queued", func() bool { return len(queued(rdb, key)) == i+1 })
	}
	if err := locktest.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	want := []int{0, 1, 2, 3, 4, 5, 6, 7}
	if !slices.Equal(order, want) {
		t.Fatalf("served in order %v, want arrival order %v", order, want)
	}
}

// A waiter whose heartbeat ran out (its process died) is skipped at release.
func TestDeadWaiterSkipped(t *testing.T) {
	q := queueBehindDeadWaiter(t)
	time.Sleep(WaiterLease + 100*time.Millisecond) // the dead one's heartbeat runs out
	if err := locktest.Unlock(q.holder); err != nil {
		t.Fatal(err)
	}
	le := awaitLock(t, q.live, 2*time.Second, "live waiter")
	defer locktest.Unlock(le)
	if slices.Contains(queued(q.rdb, q.key), q.dead) {
		t.Fatal("dead waiter still queued")
	}
	if q.rdb.Exists(context.Background(), keysOf(q.key).notify(q.fake.proc)).Val() != 0 {
		t.Fatal("the lock was handed to the dead waiter")
	}
}

// A lock handed to a waiter that died just before is recovered after that
// waiter's TTL, by the next waiter's fallback poll.
func TestLockHandedToDeadWaiterRecovered(t *testing.T) {
	q := queueBehindDeadWaiter(t)
	if err := locktest.Unlock(q.holder); err != nil {
		t.Fatal(err)
	}
	if q.rdb.LLen(context.Background(), keysOf(q.key).notify(q.fake.proc)).Val() != 1 {
		t.Fatal("the release did not hand the lock to the (still live-looking) head")
	}
	le := awaitLock(t, q.live, shortTTL+2*time.Second, "live waiter after the dead holder's TTL")
	if le.Token() <= q.holder.Token()+1 {
		t.Fatalf("token %d: want above the dead waiter's %d", le.Token(), q.holder.Token()+1)
	}
	locktest.Unlock(le)
}

// A waiter whose ctx is cancelled returns ctx's error, leaves the queue, and
// the waiter behind it is served when the holder releases.
func TestCancelledWaiterLeavesQueue(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := locktest.MustLock(t, l, key)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := goLock(ctx, l, key)
	testenv.WaitFor(t, 5*time.Second, "first waiter queued", func() bool { return len(queued(rdb, key)) == 1 })
	second := goLock(context.Background(), l, key)
	testenv.WaitFor(t, 5*time.Second, "second waiter queued", func() bool { return len(queued(rdb, key)) == 2 })
	cancel()
	select {
	case r := <-first:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled waiter: lease %v, err %v; want context.Canceled", r.le, r.err)
		}
	case <-time.After(time.Second):
		t.Fatal("cancelled waiter did not return promptly")
	}
	if q := queued(rdb, key); len(q) != 1 {
		t.Fatalf("queue after cancel: %v, want only the second waiter", q)
	}
	if err := locktest.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	locktest.Unlock(awaitLock(t, second, 2*time.Second, "second waiter"))
}

// A waiter that leaves after the lock was handed to it passes it on.
func TestLeavingWaiterPassesHandedLock(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := locktest.MustLock(t, l, key)
	fake, leaving := enqueueFake(t, rdb, key, 5*time.Second)
	next := goLock(context.Background(), l, key)
	testenv.WaitFor(t, 5*time.Second, "next waiter queued", func() bool { return len(queued(rdb, key)) == 2 })
	if err := locktest.Unlock(holder); err != nil { // hands over to leaving
		t.Fatal(err)
	}
	if got := rdb.Get(context.Background(), key).Val(); got != leaving {
		t.Fatalf("lock held by %q after release, want the head %q", got, leaving)
	}
	if _, err := fake.runQueue(context.Background(), leaveScript, keysOf(key), leaving); err != nil {
		t.Fatal(err)
	}
	locktest.Unlock(awaitLock(t, next, 2*time.Second, "next waiter"))
}

// A holder that stops without unlocking (crash, pause) is succeeded by the
// head waiter once the TTL runs out: the fallback poll finds the lock free.
func TestExpiredHolderSucceededByWaiter(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	gone := locktest.MustLock(t, New(rdb, lockstrategy.Options{TTL: shortTTL, NoRenewal: true}), key)
	defer locktest.Unlock(gone)
	next := goLock(context.Background(), New(rdb, lockstrategy.Options{TTL: 5 * time.Second}), key)
	le := awaitLock(t, next, shortTTL+2*time.Second, "waiter after the holder's TTL")
	locktest.Unlock(le)
}
