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

// Unlock releases le on a fresh ctx bounded to 5 s, as callers must.
func Unlock(le lockstrategy.Lease) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return le.Unlock(ctx)
}
