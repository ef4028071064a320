package redislock

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A hand-over pushed into a process's list while the
// process was stalled (SIGSTOP) is popped after the lock has moved on: the
// waiter's lock expired and went to someone else meanwhile. The listener
// must not deliver it as if it were fresh. The test builds the state the
// stall leaves behind: waiter w of process P was handed the lock (LPOPed
// from the queue, "w token" in P's list), and the lock now belongs to h.
func TestStaleHandOverIsNotDelivered(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	k := keysOf(key)
	q := New(rdb, lockstrategy.Options{TTL: 10 * time.Second})
	h := locktest.MustLock(t, q, key)
	p := New(rdb, lockstrategy.Options{TTL: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := goLock(ctx, p, key)
	var id string
	testenv.WaitFor(t, 10*time.Second, "P's waiter in the queue", func() bool {
		ids := queued(rdb, key)
		if len(ids) == 1 && strings.HasPrefix(ids[0], p.proc+".") {
			id = ids[0]
		}
		return id != ""
	})
	// The stale hand-over: w was LPOPed and its wake-up pushed, then the
	// lock went on (to h, whose token is newer than the stale one).
	bg := context.Background()
	rdb.LRem(bg, k.queue, 0, id)
	rdb.RPush(bg, k.notify(p.proc), id+" "+"1")

	select {
	case r := <-w:
		if r.err == nil {
			t.Fatalf("P's waiter got the lock (token %d) from a stale hand-over while h (token %d) holds it: two holders",
				r.le.Token(), h.Token())
		}
		t.Fatalf("P's waiter failed: %v", r.err)
	case <-time.After(time.Second): // the stale item is popped at once; nothing may come of it
	}
	// The void hand-over must not cost w its turn: it is queued again and
	// gets the lock when h lets go.
	if err := h.Unlock(bg); err != nil {
		t.Fatal(err)
	}
	le := awaitLock(t, w, 10*time.Second, "P's waiter after h's release")
	if le.Token() <= h.Token() {
		t.Errorf("P's waiter got token %d, h had %d: tokens must grow", le.Token(), h.Token())
	}
	if err := le.Unlock(bg); err != nil {
		t.Fatal(err)
	}
}

// A lease whose validity ended before it was made (a
// hand-over delivered late) is lost from the start, renewing or not.
func TestLeaseExpiredAtCreationIsLost(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	for _, noRenewal := range []bool{false, true} {
		l := New(rdb, lockstrategy.Options{TTL: time.Second, NoRenewal: noRenewal})
		le := newLease(l, keysOf(key), holderID(l.proc, l.ttl), 1, time.Now().Add(-2*time.Second), lockstrategy.LeaseObserverOf(context.Background()))
		if !locktest.IsClosed(le.Lost()) {
			t.Errorf("noRenewal=%v: a lease that ran out a second before it was made is not lost", noRenewal)
		}
		le.mu.Lock()
		le.released = true
		le.timer.Stop()
		le.mu.Unlock()
	}
}

// requeueAll snapshots the enqueued waiters, then runs
// requeueScript for each; a waiter that leaves in between (its ctx ended)
// must not be pushed back as a ghost that later receives the lock and
// stalls the queue for a TTL.
func TestRequeueDoesNotResurrectLeavers(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	q := New(rdb, lockstrategy.Options{TTL: 30 * time.Second})
	h := locktest.MustLock(t, q, key)
	defer h.Unlock(context.Background())
	p := New(rdb, lockstrategy.Options{TTL: 30 * time.Second})
	const rounds, n = 20, 32
	for round := range rounds {
		ctx, cancel := context.WithCancel(context.Background())
		var results []<-chan lockResult
		for range n {
			results = append(results, goLock(ctx, p, key))
		}
		testenv.WaitFor(t, 30*time.Second, "every waiter queued", func() bool { return len(queued(rdb, key)) == n })
		p.mu.Lock()
		kw := p.waiting[key]
		p.mu.Unlock()
		// Requeue again and again while the waiters give up.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						p.requeueAll(kw)
					}
				}
			}()
		}
		cancel()
		for _, r := range results {
			if res := <-r; res.err == nil {
				t.Fatalf("round %d: a waiter got the lock h holds", round)
			}
		}
		close(stop)
		wg.Wait()
		if ghosts := queued(rdb, key); len(ghosts) > 0 {
			t.Fatalf("round %d: %d waiters that left are queued again: %v", round, len(ghosts), ghosts)
		}
	}
}
