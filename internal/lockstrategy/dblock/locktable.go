package dblock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LockTable is db-lock-table (seeds 001, 004): holding the lock means owning
// the lock_table row with the key's unique value. Lock inserts it (a duplicate
// key means someone holds it), Unlock deletes it by owner, and a row past its
// expires_at is reclaimed by the next contender, so a dead holder blocks the
// key for at most the TTL. There is no renewal: a holder that works longer
// than the TTL loses the lock (Lost closes at expiry) and, without fencing,
// may overlap the next holder. The token is a per-key counter in lock_fences
// bumped by each new holder in the transaction that inserts its row, so
// tokens follow the order of acquisition even when a holder stalls between
// the two statements (the next contender waits on its uncommitted row).
// (Not the row's auto-increment id: InnoDB hands that out before the INSERT
// waits on the unique key, and the suite saw a waiter win with an older id.)
type LockTable struct {
	db    *sql.DB
	ttl   time.Duration
	owner string // per process; each lease adds its own suffix
}

var _ lockstrategy.Locker = (*LockTable)(nil)

// DefaultTTL is used when a sale sets no ttl_ms.
const DefaultTTL = 2 * time.Second

// Poll bounds: waiting is polling here (a DB has no wake-up), starting fast
// and backing off so that 64 waiters do not hammer the unique index.
const (
	minPoll = 1 * time.Millisecond
	maxPoll = 20 * time.Millisecond
)

func init() {
	lockstrategy.Register(lockstrategy.Strategy{
		Name:        "db-lock-table",
		Description: "Insert a row with a unique lock key (owner, expiry); delete by owner; expired rows are reclaimed.",
		Needs:       []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:        true,
		Tokens:      true,
		Expiry:      lockstrategy.ExpiryTTL,
		New: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			sqlDB, err := b.DB.DB()
			if err != nil {
				return nil, err
			}
			return NewLockTable(sqlDB, o.TTL), nil
		},
	})
}

// NewLockTable returns a db-lock-table locker; ttl 0 means DefaultTTL.
func NewLockTable(db *sql.DB, ttl time.Duration) *LockTable {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &LockTable{db: db, ttl: ttl, owner: lockstrategy.NewOwner()[:12]}
}

// Lock polls until the row is inserted, ctx is done, or the database fails.
func (l *LockTable) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	owner := l.owner + "-" + lockstrategy.NewOwner()[:16]
	poll := minPoll
	for {
		// A plain read first (no transaction, no lock): while the row is
		// visibly held, a poll costs one round trip, as a failed INSERT did,
		// instead of a transaction whose duplicate-key wait also holds up
		// the holder's DELETE.
		held, err := l.heldNow(ctx, key)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("dblock: read lock row: %w", err)
		}
		if held {
			jitter := time.Duration(rand.Int64N(int64(poll)))
			if err := lockstrategy.Sleep(ctx, poll/2+jitter); err != nil {
				return nil, err
			}
			poll = min(poll*2, maxPoll)
			continue
		}
		start := time.Now() // before the INSERT: the local expiry errs early, the safe side
		token, err := l.tryAcquire(ctx, key, owner)
		if err == nil {
			if left := l.ttl - lockstrategy.Drift(l.ttl) - time.Since(start); left > 0 {
				return newTableLease(l.db, key, owner, token, left), nil
			}
			// Committed so late (the token waited) that the row may have
			// expired and been reclaimed: not a lock. Give it back, go on.
			if _, err := deleteOwned(context.WithoutCancel(ctx), l.db, key, owner); err != nil {
				return nil, fmt.Errorf("dblock: give back a lock taken past its TTL: %w", err)
			}
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !isDuplicate(err) && !isDeadlock(err) {
			return nil, fmt.Errorf("dblock: insert lock row: %w", err)
		}
		// Held. Reclaim it if its holder let it expire (died, or too slow).
		res, err := l.db.ExecContext(ctx, "DELETE FROM lock_table WHERE lock_key = ? AND expires_at < NOW(6)", key)
		if err == nil {
			if n, _ := res.RowsAffected(); n > 0 {
				continue
			}
		}
		jitter := time.Duration(rand.Int64N(int64(poll)))
		if err := lockstrategy.Sleep(ctx, poll/2+jitter); err != nil {
			return nil, err
		}
		poll = min(poll*2, maxPoll)
	}
}

// heldNow reads whether key's row exists and has not expired (database
// clock). An expired row is deleted first: its holder died or was too slow,
// the next contender reclaims it.
func (l *LockTable) heldNow(ctx context.Context, key string) (bool, error) {
	var live bool
	err := l.db.QueryRowContext(ctx, "SELECT expires_at > NOW(6) FROM lock_table WHERE lock_key = ?", key).Scan(&live)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	case live:
		return true, nil
	}
	_, err = l.db.ExecContext(ctx, "DELETE FROM lock_table WHERE lock_key = ? AND expires_at < NOW(6)", key)
	if isDeadlock(err) {
		err = nil // another contender's reclaim won: read again
	}
	return false, err
}

// tryAcquire inserts the key's row and bumps its token in one transaction.
// An error from the INSERT or the bump rolls back: a statement abandoned by
// a cancelled ctx may still finish in the server, but inside a transaction
// the server rolls back once it finds the client gone, so no row is left
// that nobody owns. Only a COMMIT whose answer was lost may have landed: the
// row is then deleted by owner on a fresh ctx (the DELETE waits for the
// COMMIT or its rollback on the row lock).
func (l *LockTable) tryAcquire(ctx context.Context, key, owner string) (uint64, error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx,
		"INSERT INTO lock_table (lock_key, owner, expires_at) VALUES (?, ?, NOW(6) + INTERVAL ? MICROSECOND)",
		key, owner, l.ttl.Microseconds()); err != nil {
		_ = tx.Rollback()
		return 0, err
	}
	// LAST_INSERT_ID(expr) hands the new value back in the OK packet. A new
	// key's first row reports 0, which is token 1.
	res, err := tx.ExecContext(ctx,
		"INSERT INTO lock_fences (lock_key, n) VALUES (?, 1) ON DUPLICATE KEY UPDATE n = LAST_INSERT_ID(n + 1)", key)
	if err != nil {
		_ = tx.Rollback()
		return 0, fmt.Errorf("dblock: fencing token: %w", err)
	}
	n, err := res.LastInsertId()
	if err != nil {
		_ = tx.Rollback()
		return 0, fmt.Errorf("dblock: fencing token: %w", err)
	}
	if err := tx.Commit(); err != nil {
		if _, derr := deleteOwned(context.WithoutCancel(ctx), l.db, key, owner); derr != nil {
			err = errors.Join(err, derr)
		}
		return 0, err
	}
	return max(1, uint64(n)), nil
}

// releaseTimeout bounds the clean-up DELETEs run on a detached ctx.
const releaseTimeout = 5 * time.Second

// deleteOwned deletes key's row if owner holds it, on ctx bounded to
// releaseTimeout, repeating a deadlock victim's DELETE; it reports whether
// a row went.
func deleteOwned(ctx context.Context, db *sql.DB, key, owner string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	var (
		res sql.Result
		err error
	)
	for range 5 { // a deadlock victim's DELETE did nothing: repeat it
		res, err = db.ExecContext(ctx, "DELETE FROM lock_table WHERE lock_key = ? AND owner = ?", key, owner)
		if !isDeadlock(err) {
			break
		}
	}
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

type tableLease struct {
	db         *sql.DB
	key, owner string
	id         uint64
	lost       chan struct{}
	expiry     *time.Timer
	once       sync.Once
}

// newTableLease: validFor is what is left of the TTL, counted from before
// the INSERT and less the drift.
func newTableLease(db *sql.DB, key, owner string, id uint64, validFor time.Duration) *tableLease {
	le := &tableLease{db: db, key: key, owner: owner, id: id, lost: make(chan struct{})}
	// Without renewal the row is reclaimable at expiry: say so to the holder.
	le.expiry = time.AfterFunc(validFor, func() { close(le.lost) })
	return le
}

func (le *tableLease) Token() uint64         { return le.id }
func (le *tableLease) Lost() <-chan struct{} { return le.lost }

// Unlock deletes the row only if this lease still owns it.
func (le *tableLease) Unlock(ctx context.Context) error {
	err := lockstrategy.ErrNotHeld
	le.once.Do(func() {
		le.expiry.Stop()
		var deleted bool
		deleted, err = deleteOwned(ctx, le.db, le.key, le.owner)
		if err == nil && !deleted {
			err = lockstrategy.ErrNotHeld
		}
	})
	return err
}
