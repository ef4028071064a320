// Package memlock is the `mutex` strategy: an in-process lock per key. It is
// safe with one replica and oversells with two, because each process has its
// own lock table (as Java's synchronized works only inside one JVM).
package memlock

import (
	"context"
	"sync"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Locker holds one lock per key, for this process only.
type Locker struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "mutex",
		Description: "In-process mutex per sale: safe on one replica, oversells on several.",
		Safe:        false,
		Expiry:      lockstrategy.ExpiryProcess,
		Normalize:   lockstrategy.NoOptions,
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return New(), nil
		},
	})
}

// New returns an empty lock table.
func New() *Locker { return &Locker{locks: map[string]chan struct{}{}} }

// Lock takes key's lock. A one-slot channel rather than sync.Mutex, because a
// waiter must be able to give up when ctx is done.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	l.mu.Lock()
	ch, ok := l.locks[key]
	if !ok {
		ch = make(chan struct{}, 1)
		l.locks[key] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return &lease{ch: ch}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type lease struct {
	once sync.Once
	ch   chan struct{}
}

func (*lease) Token() uint64         { return 0 }
func (*lease) Lost() <-chan struct{} { return lockstrategy.NeverLost() }

// Unlock frees the slot once; a second Unlock reports ErrNotHeld.
func (le *lease) Unlock(context.Context) error {
	err := lockstrategy.ErrNotHeld
	le.once.Do(func() { <-le.ch; err = nil })
	return err
}
