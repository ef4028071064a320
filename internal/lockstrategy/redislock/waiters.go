package redislock

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The in-process half of the `redis` wait. Every waiting goroutine has its
// own place in the Redis queue, but a process does not spend a blocked
// connection per waiter: one listener goroutine per (Locker, key) BLPOPs the
// process's hand-over list K:n:<proc> and passes each hand-over to the one
// waiter it names, over a channel. The listener also heartbeats the process
// and runs the bounded fallback (pollScript) every PollInterval. It runs
// while the key has local waiters and exits after the last one leaves.

// handOver is a lock handed to a waiter: its token, and a local time no
// later than the SET that granted it (where its lease's clock starts).
type handOver struct {
	token uint64
	since time.Time
}

// waiter is one goroutine blocked in Lock.
type waiter struct {
	id       string
	seq      uint64        // local arrival order, for requeueing
	ch       chan handOver // buffered: a hand-over never blocks its sender
	enqueued bool          // its acquireScript returned: it is in the queue
}

// keyWaiters are a key's local waiters; guarded by Locker.mu.
type keyWaiters struct {
	k         keys
	waiters   map[string]*waiter
	listening bool
}

// register adds w to key's local waiters, before it runs acquireScript: a
// hand-over to it may come back in another local goroutine's script reply.
func (l *Locker) register(key string, w *waiter) *keyWaiters {
	l.mu.Lock()
	defer l.mu.Unlock()
	kw, ok := l.waiting[key]
	if !ok {
		kw = &keyWaiters{k: keysOf(key), waiters: map[string]*waiter{}}
		l.waiting[key] = kw
	}
	l.seq++
	w.seq = l.seq
	kw.waiters[w.id] = w
	return kw
}

// markEnqueued records that w's acquireScript has queued it, and starts the
// key's listener if it is not running (an uncontended Lock never needs one).
func (l *Locker) markEnqueued(kw *keyWaiters, w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.enqueued = true
	if !kw.listening {
		kw.listening = true
		go l.listen(kw)
	}
}

// unregister removes w: no hand-over reaches it any more (one already in
// flight is released by leaveScript, which sees the lock held by w's id).
func (l *Locker) unregister(kw *keyWaiters, w *waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(kw.waiters, w.id)
	if !kw.listening {
		l.forget(kw)
	}
}

// forget drops kw from the map once it has no waiters; l.mu held.
func (l *Locker) forget(kw *keyWaiters) {
	if len(kw.waiters) == 0 && l.waiting[kw.k.lock] == kw {
		delete(l.waiting, kw.k.lock)
	}
}

// deliver passes a hand-over to key's local waiter id, if it still waits.
// It looks the key up afresh: a lease may outlive the keyWaiters it was
// taken under (the listener drops them when the last waiter leaves).
func (l *Locker) deliver(key, id string, h handOver) {
	if id == "" {
		return
	}
	l.mu.Lock()
	var w *waiter
	if kw := l.waiting[key]; kw != nil {
		w = kw.waiters[id]
	}
	l.mu.Unlock()
	if w == nil {
		return // it left; its leaveScript releases what it was handed
	}
	select {
	case w.ch <- h:
	default: // a duplicate: the first one stands
	}
}

// listen is kw's listener; it exits when the key has no local waiters.
func (l *Locker) listen(kw *keyWaiters) {
	var lastPoll time.Time
	for {
		// A hand-over popped in this iteration was pushed after this time,
		// or during the BLPOP below: its lease clock may start here.
		since := time.Now()
		l.mu.Lock()
		if len(kw.waiters) == 0 {
			kw.listening = false
			l.forget(kw)
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		if since.Sub(lastPoll) >= PollInterval {
			lastPoll = since
			l.poll(kw, since)
		}
		res, err := l.rdb.Do(context.Background(), "BLPOP", kw.k.notify(l.proc), pollArg).StringSlice()
		switch {
		case errors.Is(err, redis.Nil): // timeout: loop to poll
		case err != nil:
			// A reply may have been lost with the connection: make sure
			// every waiter is still queued or learns it holds the lock.
			l.requeueAll(kw)
			time.Sleep(PollInterval / 4)
		case len(res) == 2:
			id, tok, ok := strings.Cut(res[1], " ")
			if n, err := strconv.ParseUint(tok, 10, 64); ok && err == nil {
				l.deliver(kw.k.lock, id, handOver{token: n, since: since})
			}
		}
	}
}

// poll heartbeats the process and repairs a free lock nobody handed over.
// If the heartbeat had lapsed (a stall longer than WaiterLease), this
// process's waiters may have been dropped as dead: requeue them.
func (l *Locker) poll(kw *keyWaiters, since time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	r, err := l.runQueue(ctx, pollScript, kw.k, "")
	if err != nil {
		return // retried at the next poll; the waiters' ctx bound them
	}
	l.deliver(kw.k.lock, r.localID, r.handOver(since))
	if r.result == 0 {
		l.requeueAll(kw)
	}
}

// requeueAll runs requeueScript for every enqueued local waiter, in local
// arrival order.
func (l *Locker) requeueAll(kw *keyWaiters) {
	l.mu.Lock()
	var ws []*waiter
	for _, w := range kw.waiters {
		if w.enqueued {
			ws = append(ws, w)
		}
	}
	l.mu.Unlock()
	slices.SortFunc(ws, func(a, b *waiter) int { return cmp.Compare(a.seq, b.seq) })
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	for _, w := range ws {
		since := time.Now()
		r, err := l.runQueue(ctx, requeueScript, kw.k, w.id)
		if err != nil {
			return
		}
		if r.result > 0 {
			l.deliver(kw.k.lock, w.id, handOver{token: uint64(r.result), since: since.Add(-r.localAge)})
		}
	}
}
