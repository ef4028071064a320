package redislock

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A hand-over whose reply never reached the releaser (lost connection) is
// found by the waiter's listener at its next poll.
func TestLostHandOverRedelivered(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := locktest.MustLock(t, l, key).(*lease)
	w := goLock(context.Background(), l, key)
	testenv.WaitFor(t, 5*time.Second, "waiter queued", func() bool { return len(queued(rdb, key)) == 1 })
	holder.timer.Stop()
	// The release runs in Redis, but its reply (and the hand-over in it) is
	// dropped on the floor.
	r, err := l.runQueue(context.Background(), releaseScript, keysOf(key), holder.id)
	if err != nil || r.result != 2 || r.localID == "" {
		t.Fatalf("release: %+v %v; want a local hand-over", r, err)
	}
	le := awaitLock(t, w, 2*time.Second, "waiter whose hand-over reply was lost")
	if le.Token() != r.localTok {
		t.Fatalf("token %d, want the handed-over %d", le.Token(), r.localTok)
	}
	locktest.Unlock(le)
}

// A process whose heartbeat lapsed (a stall past WaiterLease) has its
// waiters dropped at the head; its next poll requeues them and they are
// served. Driven by hand, without a listener, to make the order certain.
func TestLapsedProcessRequeues(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	ctx := context.Background()
	k := keysOf(key)
	// The holder is another process, driven by its scripts alone.
	other := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := holderID(other.proc, other.ttl)
	if r, err := other.runQueue(ctx, acquireScript, k, holder); err != nil || r.result == 0 {
		t.Fatalf("holder: %+v %v", r, err)
	}

	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	w := &waiter{id: holderID(l.proc, l.ttl), ch: make(chan handOver, 1), enqueued: true}
	kw := &keyWaiters{k: k, waiters: map[string]*waiter{w.id: w}, listening: true} // no listener: we drive it
	l.waiting[key] = kw
	if r, err := l.runQueue(ctx, acquireScript, k, w.id); err != nil || r.result != 0 {
		t.Fatalf("enqueue: %+v %v", r, err)
	}

	rdb.Del(ctx, k.alive(l.proc)) // the heartbeat lapses
	if r, err := other.runQueue(ctx, releaseScript, k, holder); err != nil || r.result != 1 {
		t.Fatalf("release: %+v %v; want freed, the only waiter being dead", r, err)
	}
	if slices.Contains(queued(rdb, key), w.id) {
		t.Fatal("the silent process's waiter was not dropped")
	}
	l.poll(kw, time.Now()) // finds its heartbeat gone: requeue
	if !slices.Contains(queued(rdb, key), w.id) {
		t.Fatal("poll did not requeue the dropped waiter")
	}
	l.poll(kw, time.Now()) // the lock is free and w heads the queue
	select {
	case h := <-w.ch:
		if got := rdb.Get(ctx, key).Val(); got != w.id || h.token == 0 {
			t.Fatalf("lock %q token %d; want %q with a token", got, h.token, w.id)
		}
	default:
		t.Fatal("the requeued waiter was not handed the free lock")
	}
}

// The queue outlives a long hold: while a process has waiters, its polls keep
// the queue key from expiring (a holder may keep the lock for longer than
// queueKeysTTL by renewing it).
func TestPollKeepsQueueAlive(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	holder := locktest.MustLock(t, l, key)
	defer locktest.Unlock(holder)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := goLock(ctx, l, key)
	k := keysOf(key)
	testenv.WaitFor(t, 5*time.Second, "waiter queued", func() bool { return len(queued(rdb, key)) == 1 })
	rdb.PExpire(context.Background(), k.queue, time.Second) // as if queueKeysTTL were nearly over
	testenv.WaitFor(t, 5*time.Second, "queue TTL renewed by a poll", func() bool {
		return rdb.PTTL(context.Background(), k.queue).Val() > 2*time.Second
	})
	cancel()
	<-w
}
