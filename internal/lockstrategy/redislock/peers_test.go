package redislock

// The peers the `redis` strategy is measured against (issue 3): redsync with
// its default options, and a plain pub/sub-broadcast lock. Both exist only
// for the benchmark, adapted to lockstrategy.Locker.

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

// redsyncLocker is go-redsync over the single Redis, default options: 8 s
// expiry, 32 tries, a random 50-250 ms sleep between tries.
type redsyncLocker struct{ rs *redsync.Redsync }

func newRedsyncLocker(rdb *redis.Client) *redsyncLocker {
	return &redsyncLocker{rs: redsync.New(goredis.NewPool(rdb))}
}

func (r *redsyncLocker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
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

// pubsubLocker is the seed 002 "listen for the delete" lock: SET NX PX, and
// on release a PUBLISH that every waiter hears and answers with another SET
// NX; one wins, the rest go back to sleep (the herd). To measure the herd and
// not TCP dials it is the strong form: one subscription per key and process,
// fanned out in-process, taken BEFORE each try so that a release between the
// try and the wait is not missed, plus the same 100 ms fallback as `redis`.
type pubsubLocker struct {
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

func newPubsubLocker(rdb *redis.Client) *pubsubLocker {
	return &pubsubLocker{rdb: rdb, ttl: DefaultTTL, subs: map[string]*keySub{}}
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

func (p *pubsubLocker) sub(ctx context.Context, key string) (*keySub, error) {
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

func (p *pubsubLocker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
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
			return nil, err
		}
		if ok {
			return &pubsubLease{rdb: p.rdb, key: key, owner: owner}, nil
		}
		t := time.NewTimer(PollInterval)
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
func (p *pubsubLocker) Close() error {
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
