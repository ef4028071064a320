package redislock

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
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
	// queueMu makes "is this waiter still here" and the script that acts on
	// the answer one step: a requeue and a waiter's exit (leave, or Lock
	// returning) never interleave, so a waiter that left is never pushed
	// back as a ghost that later receives the lock and stalls the queue.
	// Taken before Locker.mu, never while holding it.
	queueMu sync.Mutex
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
	kw.queueMu.Lock()
	defer kw.queueMu.Unlock()
	l.dropWaiter(kw, w.id)
}

// dropWaiter removes waiter id; kw.queueMu held.
func (l *Locker) dropWaiter(kw *keyWaiters, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(kw.waiters, id)
	if !kw.listening {
		l.forget(kw)
	}
}

// isWaiting reports whether id is one of kw's local waiters.
func (l *Locker) isWaiting(kw *keyWaiters, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := kw.waiters[id]
	return ok
}

// isHeld reports whether id is a lease of this Locker not yet unlocked (or
// a lock abandoned by an injected crash, until its TTL).
func (l *Locker) isHeld(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.held[id]
	return ok
}

func (l *Locker) setHeld(id string, held bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if held {
		l.held[id] = struct{}{}
	} else {
		delete(l.held, id)
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
			// Never trusted as it stands: the item may have waited in the
			// list while this process was stalled, and the lock moved on.
			if id, _, ok := strings.Cut(res[1], " "); ok {
				l.claim(kw, id)
			}
		}
	}
}

// claim acts on a hand-over to id of this process that was pushed through
// Redis or reported by a poll, checking the lock in Redis first: a waiter
// that still waits gets it with the lease clock Redis gives (requeueScript;
// a void hand-over queues it again instead), and a lock handed to an id that
// neither waits nor holds here (it left, or is a ghost) is released to the
// next waiter rather than left to expire.
func (l *Locker) claim(kw *keyWaiters, id string) {
	if l.isWaiting(kw, id) {
		l.requeueOne(kw, id)
		return
	}
	if l.isHeld(id) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	start := time.Now()
	if r, err := l.runQueue(ctx, leaveScript, kw.k, id); err == nil {
		l.deliver(kw.k.lock, r.localID, r.handOver(start))
	}
}

// requeueOne runs requeueScript for waiter id if it still waits, and
// delivers the lock when Redis says id holds it. It reports false when
// Redis failed.
func (l *Locker) requeueOne(kw *keyWaiters, id string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), leaveTimeout)
	defer cancel()
	kw.queueMu.Lock()
	if !l.isWaiting(kw, id) {
		kw.queueMu.Unlock()
		return true
	}
	start := time.Now()
	r, err := l.runQueue(ctx, requeueScript, kw.k, id)
	kw.queueMu.Unlock()
	if err != nil {
		return false
	}
	if r.result > 0 {
		l.deliver(kw.k.lock, id, handOver{token: uint64(r.result), since: start.Add(-r.localAge)})
	}
	return true
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
	if r.localID != "" {
		l.claim(kw, r.localID)
	}
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
	for _, w := range ws {
		if !l.requeueOne(kw, w.id) {
			return
		}
	}
}
