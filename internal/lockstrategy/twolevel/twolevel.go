// Package twolevel is the redis-2level strategy: a local hand-off in front
// of a distributed lock.
// Each process queues its own contenders for a key in memory (FIFO), and
// only one of them at a time competes for the distributed lock (the `redis`
// strategy's, package redisfifo): a singleflight per process. The process that
// gets the distributed lock passes it from one local waiter to the next,
// without a round trip to Redis, up to MaxHandOffs times; then it releases it
// to the other processes even if local waiters remain, so that a busy
// process cannot starve the others (the fairness bound).
//
// The article it comes from: 「在实例拿到了分布式锁之后,释放锁之前先看看本地有没有别的线程也需要同一把分布式锁。
// 如果有,就直接转交给本地的线程,进一步减少加锁和释放锁的开销。」
//
// Safety is the distributed lock's: local holders are strictly one after
// the other (a hand-off happens in Unlock), every local lease shares the
// distributed lease's Lost(), and no hand-off happens once it is lost.
// Fencing tokens stay monotonic across processes and hand-offs: each
// distributed acquisition reserves MaxHandOffs+1 tokens (the FIFO lock's
// token stride), t..t+MaxHandOffs, and the k-th local holding gets t+k; the
// next acquisition anywhere gets t+MaxHandOffs+1 or more.
package twolevel

import (
	"context"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
)

// MaxHandOffs is the fairness bound: how many local waiters one distributed
// holding may serve after its first holder before it goes back to Redis.
const MaxHandOffs = 8

// keyPrefix keeps this strategy's Redis keys apart from `redis`'s: its
// fencing counter advances by MaxHandOffs+1 per acquisition.
const keyPrefix = "2level:"

// Locker is redis-2level over one Redis.
type Locker struct {
	dist *redislock.Locker

	mu   sync.Mutex
	keys map[string]*keyState
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "redis-2level",
		Description: "Seed 002's local hand-off: contenders queue in their process (FIFO), one per process competes " +
			"for the `redis` lock, and the holder passes it to local waiters (up to 8) before releasing it.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedRedis},
		Safe:   true,
		Tokens: true,
		Expiry: lockstrategy.ExpiryTTL,
		Renews: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			if b.Redis == nil {
				return nil, fmt.Errorf("redis-2level: %w (no Redis)", lockstrategy.ErrMissingBackend)
			}
			return New(b.Redis, o), nil
		},
	})
}

// New returns redis-2level over rdb; o as the `redis` strategy reads it.
func New(rdb *redis.Client, o lockstrategy.Options) *Locker {
	dist := redislock.New(rdb, o)
	dist.SetTokenStride(MaxHandOffs + 1)
	return &Locker{dist: dist, keys: map[string]*keyState{}}
}

// The states of a key in this process.
type phase int

const (
	idle      phase = iota // nobody here holds or seeks the distributed lock
	acquiring              // one local contender is in the distributed Lock
	held                   // a local holder has it
	releasing              // the distributed Unlock is under way
)

// keyState is one key's local queue and distributed holding; guarded by
// Locker.mu (one mutex: the work under it is a few pointer moves).
type keyState struct {
	key      string
	phase    phase
	dist     lockstrategy.Lease // while held
	handOffs int                // local holdings after the first of this distributed holding
	queue    []*waiter
}

// A grant tells a queued waiter what it got: the lock (lease) or the duty to
// acquire the distributed lock for the process (lease nil).
type grant struct{ lease *lease }

type waiter struct{ ch chan grant } // buffered 1: a grant never blocks the granter

// Lock queues behind the process's other contenders for key and returns
// once this caller holds it, ctx is done, or the distributed Lock failed.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	k := l.keys[key]
	if k == nil {
		k = &keyState{key: key}
		l.keys[key] = k
	}
	if k.phase == idle {
		k.phase = acquiring
		l.mu.Unlock()
		return l.acquire(ctx, k)
	}
	w := &waiter{ch: make(chan grant, 1)}
	k.queue = append(k.queue, w)
	l.mu.Unlock()

	select {
	case g := <-w.ch:
		return l.granted(ctx, k, g)
	case <-ctx.Done():
	}
	l.mu.Lock()
	if i := indexOf(k.queue, w); i >= 0 {
		k.queue = append(k.queue[:i], k.queue[i+1:]...)
		l.mu.Unlock()
		return nil, ctx.Err()
	}
	l.mu.Unlock()
	// Granted while ctx ended: pass on what we were given, then give up.
	g := <-w.ch
	if g.lease != nil {
		_ = g.lease.Unlock(context.WithoutCancel(ctx))
	} else {
		l.acquireFailed(k)
	}
	return nil, ctx.Err()
}

// granted turns a grant into the caller's lease.
func (l *Locker) granted(ctx context.Context, k *keyState, g grant) (lockstrategy.Lease, error) {
	if g.lease != nil {
		return g.lease, nil
	}
	return l.acquire(ctx, k)
}

// acquire takes the distributed lock for the process; the caller is its
// first local holder.
func (l *Locker) acquire(ctx context.Context, k *keyState) (lockstrategy.Lease, error) {
	d, err := l.dist.Lock(ctx, keyPrefix+k.key)
	if err != nil {
		l.acquireFailed(k)
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k.phase, k.dist, k.handOffs = held, d, 0
	return &lease{l: l, k: k, dist: d, token: d.Token()}, nil
}

// acquireFailed passes the duty to acquire to the next local waiter (with
// its own ctx), or leaves the key idle.
func (l *Locker) acquireFailed(k *keyState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next(k, grant{})
}

// next, under l.mu, gives g to the first queued waiter; with none, the key
// goes idle and is forgotten.
func (l *Locker) next(k *keyState, g grant) {
	if len(k.queue) == 0 {
		k.phase, k.dist = idle, nil
		if l.keys[k.key] == k {
			delete(l.keys, k.key)
		}
		return
	}
	w := k.queue[0]
	k.queue = k.queue[1:]
	if g.lease == nil {
		k.phase, k.dist = acquiring, nil
	}
	w.ch <- g
}

func indexOf(q []*waiter, w *waiter) int {
	for i, x := range q {
		if x == w {
			return i
		}
	}
	return -1
}

// lease is one local holding of the distributed lock.
type lease struct {
	l        *Locker
	k        *keyState
	dist     lockstrategy.Lease
	token    uint64
	released bool // under l.mu
}

// Token is the distributed holding's first token plus the hand-offs before
// this one: monotonic across processes (the stride reserves them).
func (le *lease) Token() uint64 { return le.token }

// Lost is the distributed lease's: every local holder learns of its loss.
func (le *lease) Lost() <-chan struct{} { return le.dist.Lost() }

// Unlock hands the lock to the next local waiter while the fairness bound
// and the distributed lease allow; otherwise it releases the distributed
// lock and makes the next local waiter (if any) acquire it again.
func (le *lease) Unlock(ctx context.Context) error {
	l, k := le.l, le.k
	l.mu.Lock()
	if le.released {
		l.mu.Unlock()
		return lockstrategy.ErrNotHeld
	}
	le.released = true
	lost := isClosed(le.dist.Lost())
	if !lost && len(k.queue) > 0 && k.handOffs < MaxHandOffs {
		k.handOffs++
		l.next(k, grant{lease: &lease{l: l, k: k, dist: le.dist, token: le.dist.Token() + uint64(k.handOffs)}})
		l.mu.Unlock()
		return nil
	}
	k.phase = releasing
	l.mu.Unlock()

	err := le.dist.Unlock(ctx)
	l.mu.Lock()
	l.next(k, grant{})
	l.mu.Unlock()
	return err
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
