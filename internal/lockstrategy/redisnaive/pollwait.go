package redisnaive

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// The teaching variants wait the simple way, by polling: their lesson is a
// broken acquisition or release, not the wait, so they keep it out of the
// way (small, jittered, backing off so that 64 pollers do not hammer Redis).
const (
	minPoll = 1 * time.Millisecond
	maxPoll = 20 * time.Millisecond
)

// pollLock calls try until it takes the lock, fails, or ctx is done (ctx's
// error). try reports whether it took the lock.
func pollLock(ctx context.Context, try func(ctx context.Context) (bool, error)) error {
	poll := minPoll
	for {
		ok, err := try(ctx)
		if ok || err != nil {
			return err
		}
		jitter := time.Duration(rand.Int64N(int64(poll)))
		if err := lockstrategy.Sleep(ctx, poll/2+jitter); err != nil {
			return err
		}
		poll = min(poll*2, maxPoll)
	}
}

// ttlLease is the lease of the teaching variants: no watchdog, so it ends at
// the TTL whether or not the holder is done, and Lost says so then.
type ttlLease struct {
	lost    chan struct{}
	expiry  *time.Timer
	once    sync.Once
	release func(ctx context.Context) error
}

// newTTLLease starts the expiry clock at start, a time no later than the
// command that set the key's TTL.
func newTTLLease(start time.Time, ttl time.Duration, release func(ctx context.Context) error) *ttlLease {
	le := &ttlLease{lost: make(chan struct{}), release: release}
	le.expiry = time.AfterFunc(time.Until(start.Add(ttl-drift(ttl))), func() { close(le.lost) })
	return le
}

func (*ttlLease) Token() uint64            { return 0 }
func (le *ttlLease) Lost() <-chan struct{} { return le.lost }

// Unlock runs the variant's release once; a second call reports ErrNotHeld.
func (le *ttlLease) Unlock(ctx context.Context) error {
	err := lockstrategy.ErrNotHeld
	le.once.Do(func() {
		le.expiry.Stop()
		err = le.release(ctx)
	})
	return err
}
