// Package nolock is the `none` strategy: no lock at all. Every buyer reads the
// stock, works, and writes read-1 at the same time as the others, so the sale
// loses updates and oversells. It exists to show that (all seeds open on it).
package nolock

import (
	"context"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Locker takes no lock.
type Locker struct{}

var _ lockstrategy.Locker = (*Locker)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "none",
		Description: "No lock: concurrent read-modify-write loses updates and oversells.",
		Safe:        false,
		Expiry:      lockstrategy.ExpiryNone,
		Normalize:   lockstrategy.NoOptions,
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return &Locker{}, nil
		},
	})
}

// Lock returns at once with a lease that excludes nobody.
func (*Locker) Lock(ctx context.Context, _ string) (lockstrategy.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return lockstrategy.NopLease(), nil
}
