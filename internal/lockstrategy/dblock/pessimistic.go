package dblock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Pessimistic is db-pessimistic: the lock is a row of lock_rows held with
// SELECT ... FOR UPDATE inside an open transaction (a
// resource-lock table). The lock hands that transaction to the order path
// (lockstrategy.TxLease), which runs the stock write and the insert in it
// and commits it: the commit is the unlock, and the lock never commits
// itself. FOR UPDATE
// locks only inside a transaction (in autocommit it is released as the
// statement ends). This holds FOR UPDATE through the work; a status row
// (t_resource_lock) taken with a short FOR UPDATE and released by an UPDATE
// is the other way, closer to db-lock-table. A holder whose process dies has its
// connection closed by its kernel: the database rolls back and frees the
// row at once. A host crash or a partition keeps the row locked until the
// database notices the dead connection (wait_timeout, TCP keep-alive), and
// a SIGSTOPped holder keeps it as long as it is stopped.
// Pitfalls: every waiter holds a pooled connection while blocked, and the
// wait is bounded by innodb_lock_wait_timeout as well as ctx.
type Pessimistic struct {
	db    *gorm.DB
	known sync.Map // keys whose row exists, to skip the INSERT IGNORE
}

var (
	_ lockstrategy.Locker  = (*Pessimistic)(nil)
	_ lockstrategy.TxLease = (*txLease)(nil)
)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "db-pessimistic",
		Description: "SELECT ... FOR UPDATE on a lock row inside the order transaction; commit releases it.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:        true,
		Expiry:      lockstrategy.ExpiryConnection,
		Normalize:   lockstrategy.NoOptions,
		NewLocker: func(b lockstrategy.Backends, _ lockstrategy.Options) (lockstrategy.Locker, error) {
			return &Pessimistic{db: b.DB}, nil
		},
	})
}

// Lock begins a transaction and blocks on the key's row lock.
func (p *Pessimistic) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	if err := ensureLockRow(ctx, p.db, &p.known, key); err != nil {
		return nil, err
	}
	// The transaction outlives Lock's ctx (which bounds only the wait): a
	// transaction begun with a ctx is rolled back when that ctx ends.
	tx := p.db.WithContext(context.WithoutCancel(ctx)).Begin()
	if tx.Error != nil {
		return nil, tx.Error
	}
	var name string
	err := tx.WithContext(ctx).Raw("SELECT name FROM lock_rows WHERE name = ? FOR UPDATE", key).Row().Scan(&name)
	if err != nil {
		tx.Rollback()
		return nil, forUpdateErr(ctx, err)
	}
	return &txLease{tx: tx}, nil
}

// ensureLockRow creates key's row in lock_rows once per process (known
// remembers the keys whose row exists).
func ensureLockRow(ctx context.Context, db *gorm.DB, known *sync.Map, key string) error {
	if _, ok := known.Load(key); ok {
		return nil
	}
	if err := db.WithContext(ctx).Exec("INSERT IGNORE INTO lock_rows (name) VALUES (?)", key).Error; err != nil {
		return fmt.Errorf("dblock: create lock row: %w", err)
	}
	known.Store(key, true)
	return nil
}

// forUpdateErr maps a failed SELECT ... FOR UPDATE: the caller's ctx, the
// server's lock wait timeout (ErrNotAcquired), or the error itself.
func forUpdateErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dberr.IsLockWaitTimeout(err) {
		return lockstrategy.ErrNotAcquired
	}
	return fmt.Errorf("dblock: select for update: %w", err)
}

type txLease struct {
	once sync.Once
	tx   *gorm.DB
}

func (*txLease) Token() uint64         { return 0 }
func (*txLease) Lost() <-chan struct{} { return lockstrategy.NeverLost() }
func (l *txLease) Tx() *gorm.DB        { return l.tx }

// Unlock releases the row lock if the holder has not ended the
// transaction: it rolls back what the holder left open. After the holder's
// COMMIT or ROLLBACK (the order path's) the lock is already free and there
// is nothing to undo.
func (l *txLease) Unlock(context.Context) error {
	err := lockstrategy.ErrNotHeld
	l.once.Do(func() {
		err = l.tx.Rollback().Error
		if errors.Is(err, sql.ErrTxDone) {
			err = nil
		}
	})
	return err
}
