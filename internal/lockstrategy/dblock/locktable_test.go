package dblock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func tableDB(t *testing.T) *sql.DB {
	t.Helper()
	sqlDB, err := testenv.DB(t, "dblock").DB()
	if err != nil {
		t.Fatal(err)
	}
	return sqlDB
}

// blockKey holds key in an uncommitted transaction of its own: contenders
// for key wait on that transaction. It returns the transaction and its
// InnoDB id (to see who waits on it).
func blockKey(t *testing.T, db *sql.DB, stmt, key string) (*sql.Tx, string) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	if _, err := tx.ExecContext(ctx, stmt, key); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := tx.QueryRowContext(ctx,
		"SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return tx, id
}

// waitBlockedOn waits until some transaction waits for a lock trx holds.
func waitBlockedOn(t *testing.T, db *sql.DB, trx, what string) {
	t.Helper()
	testenv.WaitFor(t, 30*time.Second, what, func() bool {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS WHERE blocking_trx_id = ?", trx).Scan(&n)
		return err == nil && n > 0
	})
}

// The token was bumped by a statement of its own after
// the row was inserted, and the lease's clock started after both: a holder
// delayed between the two got a lease whose row had long expired (and a
// token newer than a holder who came after it), and Lost() said nothing.
// Here the key's fence row is held by another transaction, so the token
// waits past the TTL.
func TestLockTableTokenDelayedPastTTL(t *testing.T) {
	db := tableDB(t)
	const ttl = 300 * time.Millisecond
	l := NewLockTable(db, ttl)
	key := locktest.Key(t)
	if _, err := db.Exec("INSERT INTO lock_fences (lock_key, n) VALUES (?, 1) ON DUPLICATE KEY UPDATE n = n", key); err != nil {
		t.Fatal(err)
	}
	blocker, trx := blockKey(t, db, "SELECT n FROM lock_fences WHERE lock_key = ? FOR UPDATE", key)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	type result struct {
		le  lockstrategy.Lease
		err error
	}
	got := make(chan result, 1)
	go func() {
		le, err := l.Lock(ctx, key)
		got <- result{le, err}
	}()
	waitBlockedOn(t, db, trx, "the contender's token to wait on the fence row")
	time.Sleep(3 * ttl) // only makes the delay longer than the TTL more certain
	if err := blocker.Rollback(); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil {
		t.Fatalf("Lock: %v", r.err)
	}
	defer locktest.Unlock(r.le)
	var expired bool
	err := db.QueryRow("SELECT COUNT(*) = 0 FROM lock_table WHERE lock_key = ? AND expires_at > NOW(6)", key).Scan(&expired)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.le.Lost():
	default:
		if expired {
			t.Fatalf("Lock returned a lease (token %d) whose row had expired, and Lost() is open: a holder that is not one", r.le.Token())
		}
	}
}

// A waiter cancelled while its INSERT waits on another
// transaction's uncommitted row left the INSERT running in the server; it
// committed once that row went, and the key stayed blocked for a whole TTL
// by a row nobody owns.
func TestLockTableCancelledInsertLeavesNoRow(t *testing.T) {
	db := tableDB(t)
	const ttl = 30 * time.Second
	l := NewLockTable(db, ttl)
	key := locktest.Key(t)
	blocker, trx := blockKey(t, db,
		"INSERT INTO lock_table (lock_key, owner, expires_at) VALUES (?, 'blocker', NOW(6) + INTERVAL 30 SECOND)", key)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		le, err := l.Lock(ctx, key)
		if err == nil {
			le.Unlock(context.Background())
		}
		errc <- err
	}()
	waitBlockedOn(t, db, trx, "the contender's INSERT to wait on the blocker's row")
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Lock: %v, want context.Canceled", err)
	}
	if err := blocker.Rollback(); err != nil {
		t.Fatal(err)
	}
	other := NewLockTable(db, ttl)
	le, err := locktest.LockWithin(other, key, 10*time.Second)
	if err != nil {
		var owner string
		db.QueryRow("SELECT owner FROM lock_table WHERE lock_key = ?", key).Scan(&owner)
		t.Fatalf("the key is blocked after the cancelled waiter left (row owner %q, the cancelled locker is %s): %v",
			owner, l.owner, err)
	}
	if err := le.Unlock(context.Background()); err != nil {
		t.Fatal(fmt.Errorf("unlock: %w", err))
	}
}
