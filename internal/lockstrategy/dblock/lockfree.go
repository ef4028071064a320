package dblock

import (
	"context"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LockFree is db-optimistic or db-conditional: Lock excludes nobody; the order
// service detects lockstrategy.LockFree and makes the write safe instead.
type LockFree struct {
	kind       lockstrategy.WriteKind
	maxRetries int
}

var (
	_ lockstrategy.Locker   = (*LockFree)(nil)
	_ lockstrategy.LockFree = (*LockFree)(nil)
)

// DefaultCASRetries bounds db-optimistic's retries. Under heavy contention
// most rounds are lost (one winner per version), which is the lesson; the
// bound keeps a buyer from spinning forever and is reported as a conflict.
const DefaultCASRetries = 64

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "db-optimistic",
		Description: "No lock: version column, UPDATE ... WHERE version=? and retry on zero rows " +
			"(cheap when calm, retries pile up under contention).",
		Needs:  []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:   true,
		Expiry: lockstrategy.ExpiryNone,
		New: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return &LockFree{kind: lockstrategy.WriteCAS, maxRetries: DefaultCASRetries}, nil
		},
	})
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "db-conditional",
		Description: "No lock: UPDATE ... SET stock = stock - 1 WHERE stock > 0; the row lock serialises the decrement.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:        true,
		Expiry:      lockstrategy.ExpiryNone,
		New: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return &LockFree{kind: lockstrategy.WriteConditional}, nil
		},
	})
}

// Lock returns a lease that excludes nobody.
func (*LockFree) Lock(ctx context.Context, _ string) (lockstrategy.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return lockstrategy.NopLease(), nil
}

// StockWrite names the safe write the order service must use.
func (l *LockFree) StockWrite() lockstrategy.WriteKind { return l.kind }

// MaxRetries bounds CAS retries.
func (l *LockFree) MaxRetries() int { return l.maxRetries }
