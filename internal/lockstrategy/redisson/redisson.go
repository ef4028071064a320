// Package redisson is the redisson strategy: Redisson's reentrant lock
// (RLock) over one Redis, written in Go. The lock is a hash of holder ->
// hold count: the holder that has it may take it again (a nested lock) and
// it is freed on the last Unlock. A watchdog renews it every TTL/3 while it
// is held (Redisson's lockWatchdogTimeout), waiters sleep on a pub/sub
// channel that the last Unlock publishes to (and retry at the TTL the failed
// attempt returned, since a message can be missed), and each holding draws a
// fencing token from a per-key counter.
//
// Who is "the holder" is what reentrancy turns on. Redisson uses its client
// id plus the Java thread id; Go has no thread id, so the caller names the
// holder in the ctx (lockstrategy.WithHolder), and a Lock whose ctx names
// none is a holder of its own, as every other strategy's.
package redisson

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// DefaultTTL is the lease when Options.TTL is 0 (Redisson's watchdog
// default is 30 s; a lab wants a dead holder freed sooner).
const DefaultTTL = 2 * time.Second

// Locker is the redisson strategy over one Redis.
type Locker struct {
	rdb       *redis.Client
	ttl       time.Duration
	noRenewal bool
	proc      string // this Locker's id: the holder's first half, as Redisson's client id

	mu       sync.Mutex
	holdings map[string]*holding      // hash key + owner -> the holding of this process
	wakers   map[string]chan struct{} // unlock channel -> the wake-up of its local waiters

	subOnce sync.Once
	sub     *redis.PubSub
}

// unlockPattern matches every lock's unlock channel (keysOf).
const unlockPattern = "redisson:{*}:unlock"

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redisson",
		Description: "Redisson's reentrant lock: a hash of holder -> hold count (HINCRBY), watchdog renewal every " +
			"TTL/3, waiters woken by a pub/sub unlock message; fencing token from a per-key counter (this lab's addition: Redisson's RLock has none).",
		Needs:     []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:      true,
		Tokens:    true,
		Expiry:    lockstrategy.ExpiryTTL,
		Renews:    true,
		Reentrant: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			if b.Redis == nil {
				return nil, fmt.Errorf("redisson: %w (no Redis)", lockstrategy.ErrMissingBackend)
			}
			return New(b.Redis, o), nil
		},
	})
}

// New returns the strategy over rdb; o.TTL 0 means DefaultTTL, o.NoRenewal
// turns the watchdog off.
func New(rdb *redis.Client, o lockstrategy.Options) *Locker {
	ttl := o.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Locker{rdb: rdb, ttl: ttl, noRenewal: o.NoRenewal, proc: lockstrategy.NewOwner()[:12],
		holdings: map[string]*holding{}, wakers: map[string]chan struct{}{}}
}

// keys of one lock: the hash, its holding's token, the fence counter, the
// unlock channel (one hash tag: a cluster would keep them on one node).
type keys struct{ hash, token, fence, channel string }

func keysOf(key string) keys {
	h := "redisson:{" + key + "}"
	return keys{hash: h, token: h + ":token", fence: h + ":fence", channel: h + ":unlock"}
}

// Lock takes key for ctx's holder (lockstrategy.WithHolder), again if that
// holder has it already, and waits for it otherwise.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	holder := lockstrategy.Holder(ctx)
	if holder == "" {
		holder = lockstrategy.NewOwner()[:16]
	}
	owner := l.proc + ":" + holder
	k := keysOf(key)
	if le, wait, err := l.try(ctx, k, owner); le != nil || err != nil {
		return le, err
	} else if wait == 0 {
		return nil, errors.New("redisson: no answer to wait on")
	}
	wake := l.waker(k.channel)
	for {
		le, wait, err := l.try(ctx, k, owner)
		if le != nil || err != nil {
			return le, err
		}
		t := time.NewTimer(min(max(wait, time.Millisecond), l.ttl))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// waker is the channel that wakes one local waiter of a lock per unlock
// message, as Redisson releases one permit of its per-lock semaphore: one
// pattern subscription per Locker (opened at the first wait, before that
// waiter's next try, so no unlock after it is missed) serves every lock.
func (l *Locker) waker(channel string) chan struct{} {
	l.subOnce.Do(l.subscribe)
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.wakers[channel]
	if w == nil {
		w = make(chan struct{}, 1)
		l.wakers[channel] = w
	}
	return w
}

func (l *Locker) subscribe() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.sub = l.rdb.PSubscribe(ctx, unlockPattern)
	if _, err := l.sub.Receive(ctx); err != nil {
		return // waiters still wake at the TTL their try returned
	}
	msgs := l.sub.Channel()
	go func() {
		for m := range msgs {
			l.mu.Lock()
			w := l.wakers[m.Channel]
			l.mu.Unlock()
			if w != nil {
				select {
				case w <- struct{}{}:
				default: // one wake-up is pending already
				}
			}
		}
	}()
}

// Close ends the Locker's subscription.
func (l *Locker) Close() error {
	l.subOnce.Do(func() {}) // no subscription after Close
	if l.sub != nil {
		return l.sub.Close()
	}
	return nil
}

// try runs the acquire script once: a lease, or how long to wait.
func (l *Locker) try(ctx context.Context, k keys, owner string) (lockstrategy.Lease, time.Duration, error) {
	res, err := acquireScript.Run(ctx, l.rdb, []string{k.hash, k.token, k.fence}, l.ttl.Milliseconds(), owner).Int64Slice()
	if err != nil {
		return nil, 0, waitErr(ctx, fmt.Errorf("redisson: acquire: %w", err))
	}
	switch {
	case len(res) != 2:
		return nil, 0, fmt.Errorf("redisson: acquire: unexpected reply %v", res)
	case res[0] == 1: // held by another: wait at most its PTTL
		if res[1] <= 0 { // its last millisecond (0), no TTL (-1) or gone meanwhile (-2): try again soon
			res[1] = 1
		}
		return nil, time.Duration(res[1]) * time.Millisecond, nil
	case res[0] == 2:
		return nil, 0, fmt.Errorf("redisson: acquire: the holding of %s has no token (evicted?)", k.hash)
	}
	return l.attach(k, owner, uint64(res[1]), time.Now()), 0, nil
}

func waitErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// attach returns a lease on owner's holding of k, which starts (with its
// watchdog) at the first hold.
func (l *Locker) attach(k keys, owner string, token uint64, at time.Time) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := k.hash + "|" + owner
	h := l.holdings[id]
	if h == nil || h.isLost() {
		h = &holding{l: l, k: k, owner: owner, id: id, token: token, lost: make(chan struct{}), stop: make(chan struct{})}
		l.holdings[id] = h
		go h.watchdog(at)
	}
	h.holds++
	return &lease{h: h}
}

// holding is one holder's hold of one lock in this process: every nested
// lease shares its token, its Lost and its watchdog.
type holding struct {
	l     *Locker
	k     keys
	owner string
	id    string
	token uint64
	holds int // guarded by l.mu

	lost     chan struct{}
	lostOnce sync.Once
	stop     chan struct{}
	stopOnce sync.Once
}

func (h *holding) markLost() { h.lostOnce.Do(func() { close(h.lost) }) }
func (h *holding) end()      { h.stopOnce.Do(func() { close(h.stop) }) }

func (h *holding) isLost() bool {
	select {
	case <-h.lost:
		return true
	default:
		return false
	}
}

// watchdog renews the hash every TTL/3 while the holding lasts. A renewal
// that finds the hash not ours, or no successful renewal for a whole TTL
// (Redis unreachable: the key may be gone), loses the lock. Without
// renewal the lock is lost TTL after it was taken.
func (h *holding) watchdog(at time.Time) {
	ttl := h.l.ttl
	deadline := at.Add(ttl - lockstrategy.Drift(ttl))
	if h.l.noRenewal {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		select {
		case <-t.C:
			h.markLost()
		case <-h.stop:
		}
		return
	}
	tick := time.NewTicker(ttl / 3)
	defer tick.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-tick.C:
		}
		sent := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), ttl/3)
		ok, err := renewScript.Run(ctx, h.l.rdb, []string{h.k.hash, h.k.token}, ttl.Milliseconds(), h.owner).Int()
		cancel()
		switch {
		case err == nil && ok == 1:
			deadline = sent.Add(ttl - lockstrategy.Drift(ttl))
		case err == nil:
			h.markLost() // expired and maybe taken: not ours any more
			return
		case time.Now().After(deadline):
			h.markLost()
			return
		}
	}
}

// lease is one Lock's hold; nested leases share their holding.
type lease struct {
	h    *holding
	once sync.Once
}

func (le *lease) Token() uint64         { return le.h.token }
func (le *lease) Lost() <-chan struct{} { return le.h.lost }

// Unlock takes one hold off; the last frees the lock and wakes the
// waiters. A lease released already, or whose lock expired, is ErrNotHeld.
func (le *lease) Unlock(ctx context.Context) error {
	first := false
	le.once.Do(func() { first = true })
	if !first {
		return lockstrategy.ErrNotHeld
	}
	h, l := le.h, le.h.l
	l.mu.Lock()
	h.holds--
	last := h.holds <= 0
	if last && l.holdings[h.id] == h {
		delete(l.holdings, h.id)
	}
	l.mu.Unlock()
	if last {
		h.end()
	}
	n, err := releaseScript.Run(ctx, l.rdb, []string{h.k.hash, h.k.token, h.k.channel}, h.owner, l.ttl.Milliseconds()).Int()
	switch {
	case err != nil:
		return fmt.Errorf("redisson: unlock: %w", err)
	case n < 0:
		h.markLost()
		return fmt.Errorf("redisson: %w: the lock expired", lockstrategy.ErrNotHeld)
	}
	return nil
}
