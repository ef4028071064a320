package locktest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Key is a lock key no other test (or earlier run) uses.
func Key(t testing.TB) string {
	return fmt.Sprintf("test:%s:%d", t.Name(), time.Now().UnixNano())
}

// LockWithin tries to take key within d.
func LockWithin(l lockstrategy.Locker, key string, d time.Duration) (lockstrategy.Lease, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return l.Lock(ctx, key)
}

// UnlockBound bounds a test's release. Generous: the bound only stops a
// release that hangs, and a release that missed a short one on a machine
// loaded past answering in time (a make test beside an overloaded demo:
// redlock's "node #0: context deadline exceeded" at 5 s) says nothing about
// exclusion; the lease's TTL frees it all the same.
const UnlockBound = 30 * time.Second

// Unlock releases le on a fresh ctx bounded by UnlockBound.
func Unlock(le lockstrategy.Lease) error {
	ctx, cancel := context.WithTimeout(context.Background(), UnlockBound)
	defer cancel()
	return le.Unlock(ctx)
}
