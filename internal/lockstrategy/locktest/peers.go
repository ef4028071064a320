package locktest

// The peers the `redis` strategy is measured against: redsync with
// its default options, and a plain pub/sub-broadcast lock. Both exist only
// for the benchmarks, adapted to lockstrategy.Locker.

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// The peers' names in benchmark results.
const (
	PeerRedsync = "redsync-defaults"
	PeerPubSub  = "pubsub-broadcast"
)

// PubSubTTL and PubSubFallback are the pub/sub peer's lease TTL and missed-
// message fallback; they equal redislock.DefaultTTL and redislock.PollInterval
// so that only the wake-up scheme differs. They are copies, not references:
// redisfifo's own tests import this package, so it cannot import redisfifo
// (a redisfifo test checks that they stay equal).
const (
	PubSubTTL      = 2 * time.Second
	PubSubFallback = 100 * time.Millisecond
)

var (
	_ lockstrategy.Locker = (*RedsyncDefaults)(nil)
	_ lockstrategy.Locker = (*PubSub)(nil)
)

// Named is a Locker with the name it is reported under.
type Named struct {
	Name   string
	Locker lockstrategy.Locker
}

// Peers returns both peers over rdb. PubSub holds subscriptions: close it
// (it is an io.Closer) when done.
func Peers(rdb *redis.Client) []Named {
	return []Named{
		{PeerRedsync, NewRedsyncDefaults(rdb)},
		{PeerPubSub, NewPubSub(rdb)},
	}
}

// RedsyncDefaults is go-redsync over one Redis with default options: 8 s
// expiry, 32 tries, a random 50-250 ms sleep between tries. The client needs
// a PoolSize above the contenders: every waiter holds a connection per try.
type RedsyncDefaults struct{ rs *redsync.Redsync }

// NewRedsyncDefaults returns the redsync peer over rdb.
func NewRedsyncDefaults(rdb *redis.Client) *RedsyncDefaults {
	return &RedsyncDefaults{rs: redsync.New(goredis.NewPool(rdb))}
}

// Lock takes key with redsync's default retry loop; running out of tries is
// lockstrategy.ErrNotAcquired.
func (r *RedsyncDefaults) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	m := r.rs.NewMutex(key)
	if err := m.LockContext(ctx); err != nil {
		var taken *redsync.ErrTaken
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, redsync.ErrFailed), errors.As(err, &taken):
			return nil, lockstrategy.ErrNotAcquired // out of tries
		}
		return nil, err
	}
	return redsyncLease{m}, nil
}

type redsyncLease struct{ m *redsync.Mutex }

func (redsyncLease) Token() uint64         { return 0 }
func (redsyncLease) Lost() <-chan struct{} { return lockstrategy.NeverLost() }
func (le redsyncLease) Unlock(ctx context.Context) error {
	if ok, err := le.m.UnlockContext(ctx); err != nil || !ok {
		return errors.Join(lockstrategy.ErrNotHeld, err)
	}
	return nil
}

// PubSub is the "listen for the delete" lock: SET NX PX, and on
// release a PUBLISH that every waiter hears and answers with another SET NX;
// one wins, the rest go back to sleep (the thundering herd). To measure the
// herd and not TCP dials it is the strong form: one subscription per key and
// process, fanned out in-process, read BEFORE each try so that a release
// between the try and the wait is not missed, plus the same PubSubFallback
// as `redis`.
type PubSub struct {
	rdb *redis.Client
	ttl time.Duration

	mu   sync.Mutex
	subs map[string]*keySub
}

type keySub struct {
	ps  *redis.PubSub
	mu  sync.Mutex
	gen chan struct{} // closed and replaced on every release message
}

// NewPubSub returns the pub/sub-broadcast peer over rdb.
func NewPubSub(rdb *redis.Client) *PubSub {
	return &PubSub{rdb: rdb, ttl: PubSubTTL, subs: map[string]*keySub{}}
}

// pubsubRelease: compare-and-delete, then tell every waiter.
var pubsubRelease = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', KEYS[1] .. ':released', '1')
  return 1
end
return 0
`)

func (p *PubSub) sub(ctx context.Context, key string) (*keySub, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ks, ok := p.subs[key]; ok {
		return ks, nil
	}
	ps := p.rdb.Subscribe(ctx, key+":released")
	if _, err := ps.Receive(ctx); err != nil { // the subscription is confirmed
		ps.Close()
		return nil, err
	}
	ks := &keySub{ps: ps, gen: make(chan struct{})}
	go func() {
		for range ps.Channel() {
			ks.mu.Lock()
			close(ks.gen)
			ks.gen = make(chan struct{})
			ks.mu.Unlock()
		}
	}()
	p.subs[key] = ks
	return ks, nil
}

// Lock tries SET NX PX, and after each failure waits for a release message,
// PubSubFallback, or ctx.
func (p *PubSub) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	ks, err := p.sub(ctx, key)
	if err != nil {
		return nil, err
	}
	owner := lockstrategy.NewOwner()
	for {
		ks.mu.Lock()
		released := ks.gen
		ks.mu.Unlock()
		ok, err := p.rdb.SetNX(ctx, key, owner, p.ttl).Result()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		if ok {
			return &pubsubLease{rdb: p.rdb, key: key, owner: owner}, nil
		}
		t := time.NewTimer(PubSubFallback)
		select {
		case <-released:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}

// Close ends the subscriptions.
func (p *PubSub) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, ks := range p.subs {
		ks.ps.Close()
		delete(p.subs, k)
	}
	return nil
}

type pubsubLease struct {
	rdb        *redis.Client
	key, owner string
}

func (*pubsubLease) Token() uint64         { return 0 }
func (*pubsubLease) Lost() <-chan struct{} { return lockstrategy.NeverLost() }
func (le *pubsubLease) Unlock(ctx context.Context) error {
	n, err := pubsubRelease.Run(ctx, le.rdb, []string{le.key}, le.owner).Int64()
	if err == nil && n == 0 {
		err = lockstrategy.ErrNotHeld
	}
	return err
}
