package dblock

import (
	"context"
	"sync"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Autocommit is db-pessimistic-autocommit, a teaching variant: the same
// SELECT ... FOR UPDATE on the key's lock row, run outside a transaction.
// In autocommit mode every statement is its own transaction, so the row
// lock is released as the SELECT returns: Lock waits for a holder's commit
// if there is one, and then holds nothing. Buyers after it read and write
// the stock at once: lost updates and oversell, on one replica or many.
// A FOR UPDATE lock must run inside a transaction: 「这里需要注意一下哈,必须要加事务
// 哈。」 (and 「@Transcational //一定要加事务」 in the article's code).
type Autocommit struct {
	db    *gorm.DB
	known sync.Map
}

var _ lockstrategy.Locker = (*Autocommit)(nil)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "db-pessimistic-autocommit",
		Description: "Teaching variant: SELECT ... FOR UPDATE without a transaction; autocommit ends the statement's " +
			"transaction, and its row lock, as the SELECT returns: the lock excludes nothing.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:      false,
		Expiry:    lockstrategy.ExpiryNone,
		Normalize: lockstrategy.NoOptions,
		NewLocker: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Locker, error) {
			return &Autocommit{db: b.DB}, nil
		},
	})
}

// Lock runs the FOR UPDATE in autocommit: the row is locked and unlocked
// inside this one statement.
func (a *Autocommit) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	if err := ensureLockRow(ctx, a.db, &a.known, key); err != nil {
		return nil, err
	}
	var name string
	// THE PITFALL: no Begin. The row lock ends with this statement.
	if err := a.db.WithContext(ctx).Raw("SELECT name FROM lock_rows WHERE name = ? FOR UPDATE", key).Row().Scan(&name); err != nil {
		return nil, forUpdateErr(ctx, err)
	}
	return &nothingHeld{}, nil
}

// nothingHeld is the lease of a lock that ended before Lock returned.
type nothingHeld struct{ once sync.Once }

func (*nothingHeld) Token() uint64         { return 0 }
func (*nothingHeld) Lost() <-chan struct{} { return lockstrategy.NeverLost() }

// Unlock has nothing to release; a second call says so.
func (n *nothingHeld) Unlock(context.Context) error {
	err := lockstrategy.ErrNotHeld
	n.once.Do(func() { err = nil })
	return err
}
