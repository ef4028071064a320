package dblock

import "github.com/seckill-lab/seckill/internal/lockstrategy"

// LockFree is db-optimistic or db-conditional: no lock of ours; the order
// service makes the stock write safe with the write it names instead (the
// database still takes its own row lock for that one statement).
type LockFree struct {
	kind       lockstrategy.WriteKind
	maxRetries int
}

var _ lockstrategy.LockFree = (*LockFree)(nil)

// DefaultCASRetries bounds db-optimistic's retries. Under heavy contention
// most rounds are lost (one winner per version), which is the lesson; the
// bound keeps a buyer from spinning forever and is reported as a conflict.
const DefaultCASRetries = 64

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "db-optimistic",
		Description: "No lock of ours: version column, UPDATE ... WHERE version=? and retry on zero rows " +
			"(cheap when calm, retries pile up under contention).",
		Needs:     []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:      true,
		Expiry:    lockstrategy.ExpiryNone,
		Normalize: lockstrategy.NoOptions,
		NewLockFree: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.LockFree, error) {
			return &LockFree{kind: lockstrategy.WriteCAS, maxRetries: DefaultCASRetries}, nil
		},
	})
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "db-conditional",
		Description: "No lock of ours: UPDATE ... SET stock = stock - 1 WHERE stock > 0; the database's own row lock, " +
			"held for that one statement, serialises the decrement.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:        true,
		SplitsStock: true,
		Expiry:      lockstrategy.ExpiryNone,
		Normalize:   lockstrategy.NoOptions,
		NewLockFree: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.LockFree, error) {
			return &LockFree{kind: lockstrategy.WriteConditional}, nil
		},
	})
}

// StockWrite names the safe write the order service must use.
func (l *LockFree) StockWrite() lockstrategy.WriteKind { return l.kind }

// MaxRetries bounds CAS retries.
func (l *LockFree) MaxRetries() int { return l.maxRetries }
