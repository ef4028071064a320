package dblock

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LockTable is db-lock-table: holding the lock means owning
// the lock_table row with the key's unique value. Lock inserts it (a duplicate
// key means someone holds it), Unlock deletes it by owner, and a row past its
// expires_at is reclaimed by the next contender, so a dead holder blocks the
// key for at most the TTL (and a tenth: waiters look for an expired row
// every tenth of it, not on every poll). There is no renewal: a holder that works longer
// than the TTL loses the lock (Lost closes when this process's timer, started
// before the INSERT, runs out: a paused or starved process learns it late,
// after the next holder may have reclaimed the row) and, without fencing,
// may overlap the next holder. The token is a per-key counter in lock_fences
// bumped by each new holder right after its INSERT; a holder whose validity
// (counted from before the INSERT) is over by then gives the row back, so
// the tokens of the leases handed out follow the order of acquisition.
// (Not the row's auto-increment id: InnoDB hands that out before the INSERT
// waits on the unique key, and the suite saw a waiter win with an older id.)
//
// Reentrant (db-lock-table, not db-lock-table-plain): the row's owner is
// this process and the holder ctx names (lockstrategy.WithHolder), and its
// holds column counts that holder's nested Locks, as seed 004's memo column
// would ("标记下当前加锁的client和加锁次数"): a Lock that finds the row its own
// adds one hold, an Unlock takes one off, and the last deletes the row.
type LockTable struct {
	db        *sql.DB
	ttl       time.Duration
	owner     string // per process; each lease adds its own suffix
	reentrant bool
	// faults is the replica's crash point (fault crash_after_setnx): armed,
	// the next acquisition dies right after its INSERT and leaves its row
	// as a dead process would, until a waiter deletes it past expires_at.
	faults faultpoint.Hooks
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
		Name: "db-lock-table",
		Description: "Insert a row with a unique lock key (owner, expiry, hold count); the same holder locks again by " +
			"counting; the last unlock deletes it; expired rows are reclaimed.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:      true,
		Tokens:    true,
		Expiry:    lockstrategy.ExpiryTTL,
		Reentrant: true,
		Normalize: lockstrategy.TTLOnly,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			sqlDB, err := b.DB.DB()
			if err != nil {
				return nil, err
			}
			l := NewLockTable(sqlDB, o.TTL)
			l.faults = b.Faults
			return l, nil
		},
	})
	lockstrategy.Register(lockstrategy.Strategy{
		Name: "db-lock-table-plain",
		Description: "Teaching variant: db-lock-table without the hold count; every Lock is a holder of its own, so a " +
			"nested Lock retries its INSERT on the duplicate key of the row its own caller holds (about every 1 ms at " +
			"first, backing off to about every 20 ms) until its bound.",
		Needs:     []lockstrategy.Need{lockstrategy.NeedDB},
		Safe:      true,
		Tokens:    true,
		Expiry:    lockstrategy.ExpiryTTL,
		Normalize: lockstrategy.TTLOnly,
		NewLocker: func(b lockstrategy.Backends, o lockstrategy.Options) (lockstrategy.Locker, error) {
			sqlDB, err := b.DB.DB()
			if err != nil {
				return nil, err
			}
			l := NewPlainLockTable(sqlDB, o.TTL)
			l.faults = b.Faults
			return l, nil
		},
	})
}

// NewLockTable returns a db-lock-table locker (reentrant); ttl 0 means
// DefaultTTL.
func NewLockTable(db *sql.DB, ttl time.Duration) *LockTable {
	l := NewPlainLockTable(db, ttl)
	l.reentrant = true
	return l
}

// NewPlainLockTable returns a db-lock-table-plain locker: no hold count.
func NewPlainLockTable(db *sql.DB, ttl time.Duration) *LockTable {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &LockTable{db: db, ttl: ttl, owner: lockstrategy.NewOwner()[:12]}
}

// ownerFor is the row's owner for a Lock under ctx: this process and ctx's
// holder (hashed to a fixed length) when the table counts holds and ctx
// names one, else a holder of its own.
func (l *LockTable) ownerFor(ctx context.Context) (owner string, named bool) {
	if h := lockstrategy.Holder(ctx); l.reentrant && h != "" {
		sum := sha256.Sum256([]byte(h))
		return l.owner + "-h" + hex.EncodeToString(sum[:])[:32], true
	}
	return l.owner + "-" + lockstrategy.NewOwner()[:16], false
}

// insertLockWait caps how long the server lets a lock-row INSERT wait for
// another transaction's row lock (MariaDB's SET STATEMENT): a waiter whose
// ctx ends abandons its INSERT, which the server finishes on its own, and
// the clean-up that deletes a row it may have left runs after this cap.
const insertLockWait = time.Second

// Lock polls until the row is inserted, ctx is done, or the database fails.
func (l *LockTable) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	owner, named := l.ownerFor(ctx)
	poll := minPoll
	var reclaimAt time.Time // when to look for an expired row next: at once, then every reclaimEvery
	for {
		start := time.Now() // before the INSERT: the local expiry errs early, the safe side
		token, err := l.tryAcquire(ctx, key, owner)
		if err == nil && faultpoint.Acquired(l.faults) {
			// Dead right after its INSERT: no Unlock will ever delete the row.
			return nil, fmt.Errorf("dblock: lock %s: %w", key, lockstrategy.ErrHolderCrashed)
		}
		if err == nil {
			// A holder delayed between its INSERT and
			// its token (a stall, a token waiting on a row lock) may hold a
			// row that has expired, and a token newer than a later holder's.
			// Counted from before the INSERT, its validity is then over:
			// not a lock. Given back, the tokens of the leases handed out
			// follow the order of acquisition.
			if left := l.ttl - lockstrategy.Drift(l.ttl) - time.Since(start); left > 0 {
				return newTableLease(l.db, key, owner, named, token, left), nil
			}
			if _, err := deleteOwned(context.WithoutCancel(ctx), l.db, key, owner); err != nil {
				return nil, fmt.Errorf("dblock: give back a lock taken past its TTL: %w", err)
			}
			continue
		}
		if ctx.Err() != nil {
			// The INSERT may still land in the server (defect 7): delete a
			// row it leaves, once the server has given up waiting. Not a
			// named holder's: by then the row may be that holder's outer
			// hold, and a stray row of it expires after the TTL.
			if !named {
				time.AfterFunc(insertLockWait+time.Second, func() {
					_, _ = deleteOwned(context.Background(), l.db, key, owner)
				})
			}
			return nil, ctx.Err()
		}
		if !dberr.IsDuplicate(err) && !dberr.IsDeadlock(err) && !dberr.IsLockWaitTimeout(err) {
			return nil, fmt.Errorf("dblock: insert lock row: %w", err)
		}
		if named {
			// Held: by this holder? Then one more hold, not a wait for itself.
			le, err := l.holdAgain(ctx, key, owner)
			if le != nil || err != nil {
				return le, err
			}
		}
		// Held. Reclaim it if its holder let it expire (died, or too
		// slow): at the first refusal, then every reclaimEvery, not on
		// every poll. The DELETE locks the row however it ends, and with
		// 32 waiters deleting on every poll a loaded machine made the
		// holder's own release a deadlock victim again and again, past
		// 30 s. A dead holder's row then waits at most reclaimEvery more.
		if now := time.Now(); !now.Before(reclaimAt) {
			reclaimAt = now.Add(l.reclaimEvery())
			res, err := l.db.ExecContext(ctx, "DELETE FROM lock_table WHERE lock_key = ? AND expires_at < NOW(6)", key)
			if err == nil {
				if n, _ := res.RowsAffected(); n > 0 {
					continue
				}
			}
		}
		jitter := time.Duration(rand.Int64N(int64(poll)))
		if err := lockstrategy.Sleep(ctx, poll/2+jitter); err != nil {
			return nil, err
		}
		poll = min(poll*2, maxPoll)
	}
}

// reclaimEvery is how often a waiter looks for an expired row: a tenth of
// the TTL, between maxPoll and a second.
func (l *LockTable) reclaimEvery() time.Duration {
	return min(max(l.ttl/10, maxPoll), time.Second)
}

// tryAcquire inserts the key's row, then bumps the key's token. Two
// autocommit statements, as cheap under contention as a lock table gets (a
// transaction holding the row across round trips starved waiters of the
// 32-goroutine check on a loaded machine); Lock's validity check makes the
// gap between them harmless. A failed bump gives the row back.
func (l *LockTable) tryAcquire(ctx context.Context, key, owner string) (uint64, error) {
	if _, err := l.db.ExecContext(ctx, fmt.Sprintf("SET STATEMENT innodb_lock_wait_timeout = %d FOR "+
		"INSERT INTO lock_table (lock_key, owner, expires_at) VALUES (?, ?, NOW(6) + INTERVAL ? MICROSECOND)",
		int(insertLockWait.Seconds())), key, owner, l.ttl.Microseconds()); err != nil {
		return 0, err
	}
	// LAST_INSERT_ID(expr) hands the new value back in the OK packet. A new
	// key's first row reports 0, which is token 1.
	res, err := l.db.ExecContext(ctx,
		"INSERT INTO lock_fences (lock_key, n) VALUES (?, 1) ON DUPLICATE KEY UPDATE n = LAST_INSERT_ID(n + 1)", key)
	var n int64
	if err == nil {
		n, err = res.LastInsertId()
	}
	if err != nil {
		if _, derr := deleteOwned(context.WithoutCancel(ctx), l.db, key, owner); derr != nil {
			err = errors.Join(err, derr)
		}
		return 0, fmt.Errorf("dblock: fencing token: %w", err)
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
	n, err := execRepeatingDeadlocks(ctx, db, "DELETE FROM lock_table WHERE lock_key = ? AND owner = ?", key, owner)
	return n > 0, err
}

// execRepeatingDeadlocks runs one statement, repeating it while it is a
// deadlock victim (it did nothing: contended INSERTs and DELETEs on one
// unique key make InnoDB pick victims), after a short jittered pause, until
// ctx ends; it returns the rows it changed. (Five repeats back to back were
// not enough: 32 pollers on one key, on a machine at load 20, made one
// release a victim five times running.)
func execRepeatingDeadlocks(ctx context.Context, db *sql.DB, query string, args ...any) (int64, error) {
	for {
		res, err := db.ExecContext(ctx, query, args...)
		if err == nil {
			return res.RowsAffected()
		}
		if !dberr.IsDeadlock(err) {
			return 0, err
		}
		if lockstrategy.Sleep(ctx, minPoll+time.Duration(rand.Int64N(int64(4*minPoll)))) != nil {
			return 0, err
		}
	}
}

// holdAgain adds a hold to key's row if owner has it and it has not
// expired; the nested lease shares the row's token and what is left of its
// validity. It returns nil, nil when owner does not hold key.
func (l *LockTable) holdAgain(ctx context.Context, key, owner string) (lockstrategy.Lease, error) {
	res, err := l.db.ExecContext(ctx,
		"UPDATE lock_table SET holds = holds + 1 WHERE lock_key = ? AND owner = ? AND expires_at > NOW(6)", key, owner)
	if dberr.IsDeadlock(err) || dberr.IsLockWaitTimeout(err) {
		return nil, nil // contended: poll again, as for anyone's row
	}
	if err != nil {
		return nil, fmt.Errorf("dblock: count a nested hold: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	var (
		token   uint64
		leftUS  int64
		holding = context.WithoutCancel(ctx)
	)
	err = l.db.QueryRowContext(holding, "SELECT f.n, TIMESTAMPDIFF(MICROSECOND, NOW(6), t.expires_at) "+
		"FROM lock_table t JOIN lock_fences f ON f.lock_key = t.lock_key WHERE t.lock_key = ? AND t.owner = ?",
		key, owner).Scan(&token, &leftUS)
	left := time.Duration(leftUS)*time.Microsecond - lockstrategy.Drift(l.ttl)
	if err == nil && left > 0 {
		return newTableLease(l.db, key, owner, true, max(1, token), left), nil
	}
	_, _ = releaseHold(holding, l.db, key, owner) // the hold just added
	if err != nil {
		return nil, fmt.Errorf("dblock: read a nested hold's token: %w", err)
	}
	return nil, nil // expired meanwhile: wait, as for anyone's row
}

// releaseHold takes one hold off key's row if owner has it: the last
// deletes the row, a nested one is counted down. It reports whether owner
// held it.
func releaseHold(ctx context.Context, db *sql.DB, key, owner string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	// The last hold first: the usual case, one statement.
	n, err := execRepeatingDeadlocks(ctx, db, "DELETE FROM lock_table WHERE lock_key = ? AND owner = ? AND holds <= 1", key, owner)
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = execRepeatingDeadlocks(ctx, db,
		"UPDATE lock_table SET holds = holds - 1 WHERE lock_key = ? AND owner = ? AND holds > 1", key, owner)
	return n > 0, err
}

type tableLease struct {
	db         *sql.DB
	key, owner string
	counted    bool // the owner is a named holder: its holds may be more than 1
	id         uint64
	lost       chan struct{}
	expiry     *time.Timer
	once       sync.Once
}

// newTableLease: validFor is what is left of the TTL, counted from before
// the INSERT and less the drift.
func newTableLease(db *sql.DB, key, owner string, counted bool, id uint64, validFor time.Duration) *tableLease {
	le := &tableLease{db: db, key: key, owner: owner, counted: counted, id: id, lost: make(chan struct{})}
	// Without renewal the row is reclaimable at expiry: say so to the holder.
	le.expiry = time.AfterFunc(validFor, func() { close(le.lost) })
	return le
}

func (le *tableLease) Token() uint64         { return le.id }
func (le *tableLease) Lost() <-chan struct{} { return le.lost }

// Unlock takes this lease's hold off the row, only if it still owns it:
// the last hold deletes the row.
func (le *tableLease) Unlock(ctx context.Context) error {
	err := lockstrategy.ErrNotHeld
	le.once.Do(func() {
		le.expiry.Stop()
		var deleted bool
		if le.counted {
			deleted, err = releaseHold(ctx, le.db, le.key, le.owner)
		} else { // a holder of its own holds once: no count to take off
			deleted, err = deleteOwned(ctx, le.db, le.key, le.owner)
		}
		if err == nil && !deleted {
			err = lockstrategy.ErrNotHeld
		}
	})
	return err
}
