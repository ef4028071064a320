// Package consistenthash is the `consistent-hash` strategy: no shared lock.
// Every order of a sale is served by one owner replica, chosen by a
// consistent-hash ring (internal/hashring) over the live replicas, and
// serialised there by an in-process lock per key. A replica that does not
// own the sale refuses the order with a lockstrategy.NotOwnerError, naming the owner, and the
// buyer retries there (docs/decisions/0034-consistent-hashing.md says why
// refusing rather than forwarding).
//
// It holds while the replicas agree on the ring. Each one's view refreshes
// from the heartbeats every hashring.Refresh, so for a moment after a
// replica joins or leaves two of them can each believe they own the sale:
// two holders in two processes. Fencing bounds the damage: a lease's token
// is its view's epoch and a count, so that once an owner with a newer
// view has written, the older owner's writes are refused.
package consistenthash

import (
	"context"
	"fmt"
	"sync"

	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/memlock"
)

// Name is the strategy's registry name.
const Name = "consistent-hash"

// seqBits: a token is epoch<<seqBits plus the acquisitions of one process
// within that epoch (16 M of them before it reaches the next epoch's range).
const seqBits = 24

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: Name,
		Description: "Consistent hashing: one owner replica per sale (a ring over the live replicas), an in-process lock there; " +
			"the others refuse. Two owners for a moment when a replica joins or leaves: fence it.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:      true,
		Tokens:    true,
		Expiry:    lockstrategy.ExpiryProcess,
		Normalize: lockstrategy.NoOptions,
		NewLocker: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Locker, error) {
			ring := b.Ring
			if ring == nil {
				ring = hashring.NewMembership(nil, nil)
			}
			return New(ring), nil
		},
	})
}

// Locker takes a key's lock on its owner replica only.
type Locker struct {
	ring  *hashring.Membership
	local *memlock.Locker

	mu   sync.Mutex
	last uint64 // the last token given
}

var _ lockstrategy.Locker = (*Locker)(nil)

// New is the strategy over ring, this replica's view.
func New(ring *hashring.Membership) *Locker {
	return &Locker{ring: ring, local: memlock.New()}
}

// Lock refuses a key this replica does not own (NotOwnerError), else takes
// its in-process lock; it looks at the ring again once it has the lock (the
// view may have changed while it waited) and refuses if it lost the key.
func (l *Locker) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	if _, err := l.owned(ctx, key); err != nil {
		return nil, err
	}
	inner, err := l.local.Lock(ctx, key)
	if err != nil {
		return nil, err
	}
	v, err := l.owned(ctx, key)
	if err != nil {
		_ = inner.Unlock(ctx)
		return nil, err
	}
	return &lease{Lease: inner, token: l.token(v.Epoch)}, nil
}

// owned is the current view if this replica owns key in it, else a
// NotOwnerError naming the owner in this replica's view.
func (l *Locker) owned(ctx context.Context, key string) (hashring.View, error) {
	v, err := l.ring.Current(ctx)
	if err != nil && v.Epoch == 0 {
		return v, fmt.Errorf("consistent-hash: no ring view yet: %w", err)
	}
	// A failed refresh keeps the last view: the ring is as stale as the
	// heartbeats, which is the strategy's documented weakness, not a new one.
	owner, ok := v.Owner(key)
	if !ok || owner.ID != v.Self.ID {
		return v, &lockstrategy.NotOwnerError{Key: key, Owner: owner.ID, OwnerURL: owner.URL}
	}
	return v, nil
}

// token is epoch<<seqBits plus this process's acquisitions since its view
// took that epoch: it grows with every acquisition in this process, and
// across processes with the epoch of the owner's view. Past 2^seqBits
// acquisitions in one epoch it runs into the next millisecond's range
// rather than wrapping (a wrap would fence this owner's own writes).
func (l *Locker) token(epoch uint64) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = max(l.last+1, epoch<<seqBits)
	return l.last
}

// lease is the in-process lease with the ring's token.
type lease struct {
	lockstrategy.Lease
	token uint64
}

func (le *lease) Token() uint64 { return le.token }
