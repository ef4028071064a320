// Package etcdlock is the etcd strategy, beyond the seeds: the lock the
// etcd client ships (go.etcd.io/etcd/client/v3/concurrency), which is the
// ZooKeeper recipe over a lease instead of a session.
//
// Each Lock grants a lease of its own (a Session: one holder per lease, or
// two goroutines of one process would share one lock key and both believe
// they hold it), keeps it alive every TTL/3, and creates the key
// /seckill/locks/<key>/<lease id> bound to it. The key with the lowest
// create revision holds the lock; every other waiter watches only the key
// just below its own. A holder that dies stops its keep-alives and its key
// goes when the lease expires. The key's create revision is the fencing
// token: etcd's revision grows with every write of the whole store, and the
// holders take the lock in the order of their keys' create revisions.
package etcdlock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// DefaultTTL is the lease TTL when Options.TTL is 0.
const DefaultTTL = 5 * time.Second

// MinTTL is the shortest lease this strategy asks for: etcd counts leases in
// whole seconds, and its server raises shorter ones to 1.5 election
// timeouts (1.5 s with the default 1 s election timeout: 2 s in seconds).
const MinTTL = 2 * time.Second

// Prefix is the parent of every lock's keys.
const Prefix = "/seckill/locks/"

// Locker is the etcd strategy over one client (one gRPC connection, shared
// by every lease of the process).
type Locker struct {
	cli       *clientv3.Client
	ttl       int // seconds
	noRenewal bool
	// beforeQueue and afterQueue, in tests, run just before the Mutex's
	// Lock and between it and the read of our key: where a lease that runs
	// out (a stopped process) is found gone.
	beforeQueue, afterQueue func(clientv3.LeaseID)
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "etcd",
		Description: "etcd's concurrency.Mutex: a key per waiter bound to its own lease (kept alive every TTL/3); " +
			"the lowest create revision holds; each waiter watches its predecessor; token = the key's create revision.",
		Needs:  []lockstrategy.Need{lockstrategy.NeedEtcd},
		Safe:   true,
		Tokens: true,
		Expiry: lockstrategy.ExpiryTTL,
		Renews: true,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			return New(b.Etcd, o)
		},
	})
}

// LeaseTTL is the lease a TTL asks for: whole seconds, rounded up, at least
// MinTTL.
func LeaseTTL(d time.Duration) time.Duration {
	if d <= 0 {
		d = DefaultTTL
	}
	return time.Duration(math.Ceil(max(d, MinTTL).Seconds())) * time.Second
}

// New connects to endpoints (in the background: Lock waits for it). Close it.
func New(endpoints []string, o lockstrategy.Options) (*Locker, error) {
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("etcd: %w (no endpoints)", lockstrategy.ErrMissingBackend)
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		// The client logs every retry at warn level: keep the replica's log
		// for the replica.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd: %w", err)
	}
	return &Locker{cli: cli, ttl: int(LeaseTTL(o.TTL) / time.Second), noRenewal: o.NoRenewal}, nil
}

// Client is the connection, for tests and the health probe.
func (l *Locker) Client() *clientv3.Client { return l.cli }

// Close closes the connection; held leases expire on the server.
func (l *Locker) Close() error { return l.cli.Close() }

// Lock queues for key and returns when its key is the lowest, when ctx ends
// (its key is then deleted with its lease: a cancelled waiter leaves
// nothing queued), or when its lease ran out while it waited.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	granted := time.Now() // before the grant: the server counts the TTL from later
	grant, err := l.cli.Grant(ctx, int64(l.ttl))
	if err != nil {
		return nil, giveUp(ctx, fmt.Errorf("etcd: grant a lease: %w", err))
	}
	// The session's keep-alive runs on the client's context, not ctx: it
	// must outlive this call.
	s, err := concurrency.NewSession(l.cli, concurrency.WithLease(grant.ID))
	if err != nil {
		l.revoke(grant.ID)
		return nil, giveUp(ctx, fmt.Errorf("etcd: session: %w", err))
	}
	if l.noRenewal {
		// The pitfall of a TTL shorter than the work: no keep-alive, the
		// lease (and the lock) ends TTL after the grant, held or not.
		s.Orphan()
	}
	m := concurrency.NewMutex(s, Prefix+key)
	if l.beforeQueue != nil {
		l.beforeQueue(grant.ID)
	}
	if err := m.Lock(ctx); err != nil {
		l.revoke(grant.ID) // deletes our waiter key with the lease
		// The lease ran out while we waited (the session saw it), or
		// before our key was even put (the server no longer knows it).
		if errors.Is(err, concurrency.ErrSessionExpired) || errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil, fmt.Errorf("etcd: %w: the lease ran out while waiting (%v)", lockstrategy.ErrNotAcquired, err)
		}
		return nil, giveUp(ctx, fmt.Errorf("etcd: lock: %w", err))
	}
	if l.afterQueue != nil {
		l.afterQueue(grant.ID)
	}
	// The create revision of our key, which m keeps to itself.
	resp, err := l.cli.Get(ctx, m.Key())
	if err != nil {
		l.revoke(grant.ID)
		return nil, giveUp(ctx, fmt.Errorf("etcd: read our key: %w", err))
	}
	if len(resp.Kvs) == 0 {
		// The lease ran out between the Mutex's answer and this read (the
		// process stalled): not acquired, as when it runs out in the queue.
		l.revoke(grant.ID)
		return nil, fmt.Errorf("etcd: %w: our key is gone (the lease ran out)", lockstrategy.ErrNotAcquired)
	}
	le := &lease{l: l, s: s, id: grant.ID, token: uint64(resp.Kvs[0].CreateRevision),
		lost: make(chan struct{}), released: make(chan struct{})}
	go le.watch(granted)
	return le, nil
}

// revoke ends a lease we no longer want, bounded; if it fails the lease
// expires on its own after the TTL.
func (l *Locker) revoke(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = l.cli.Revoke(ctx, id)
}

// giveUp returns ctx's error when ctx ended (the caller's bound, which the
// suite and the order flow test with errors.Is), else err.
func giveUp(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	if strings.Contains(err.Error(), "context deadline exceeded") {
		return fmt.Errorf("%w: %v", lockstrategy.ErrNotAcquired, err)
	}
	return err
}

// lease is one holding.
type lease struct {
	l        *Locker
	s        *concurrency.Session
	id       clientv3.LeaseID
	token    uint64
	lost     chan struct{}
	released chan struct{}
	once     sync.Once
}

func (le *lease) Token() uint64         { return le.token }
func (le *lease) Lost() <-chan struct{} { return le.lost }

// watch closes lost when the lease is known to be gone: the keep-alive
// stopped (the lease expired, or no answer within a TTL: the client's own
// deadline, which comes no sooner than the server's expiry), or, without
// renewal, TTL after the grant.
func (le *lease) watch(granted time.Time) {
	var done <-chan struct{}
	var expiry <-chan time.Time
	if le.l.noRenewal {
		t := time.NewTimer(time.Until(granted.Add(time.Duration(le.l.ttl) * time.Second)))
		defer t.Stop()
		expiry = t.C
	} else {
		done = le.s.Done()
	}
	select {
	case <-done:
	case <-expiry:
	case <-le.released:
		return
	}
	close(le.lost)
}

// Unlock deletes our key and revokes the lease; the next waiter's watch
// fires. A lease already lost (or a second Unlock) returns ErrNotHeld.
func (le *lease) Unlock(ctx context.Context) error {
	first := false
	le.once.Do(func() { first = true; close(le.released) })
	if !first {
		return lockstrategy.ErrNotHeld
	}
	select {
	case <-le.lost:
		le.l.revoke(le.id)
		return fmt.Errorf("etcd: %w: the lease ran out", lockstrategy.ErrNotHeld)
	default:
	}
	// Revoking the lease deletes our key with it, in one step; the session
	// then stops its keep-alive.
	_, err := le.l.cli.Revoke(ctx, le.id)
	le.s.Orphan()
	if err != nil {
		return fmt.Errorf("etcd: unlock: %w", err)
	}
	return nil
}
