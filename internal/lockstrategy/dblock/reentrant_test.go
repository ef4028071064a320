package dblock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
)

// A nested Lock by the same holder: db-lock-table counts it in the row
// (holds 2, one token) and frees the row on the last Unlock, not the first;
// db-lock-table-plain, without the count, waits for its own row until the
// bound. (The conformance suite's reentrant check covers db-lock-table too.)
func TestNestedLockCountsOnTheTableAndWaitsOnThePlainOne(t *testing.T) {
	db := tableDB(t)
	holder := lockstrategy.WithHolder(context.Background(), "order-1")
	within := func(l *LockTable, ctx context.Context, key string, d time.Duration) (lockstrategy.Lease, error) {
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return l.Lock(ctx, key)
	}
	holds := func(key string) (n int) {
		if err := db.QueryRow("SELECT COALESCE(MAX(holds), 0) FROM lock_table WHERE lock_key = ?", key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	key := fmt.Sprintf("reentrant:%d", time.Now().UnixNano())
	l := NewLockTable(db, 10*time.Second)
	outer, err := within(l, holder, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := within(l, holder, key, time.Second)
	if err != nil {
		t.Fatalf("db-lock-table: the holder could not lock again: %v", err)
	}
	if got := holds(key); got != 2 || inner.Token() != outer.Token() {
		t.Fatalf("holds %d tokens %d/%d, want 2 holds and one token", got, inner.Token(), outer.Token())
	}
	if err := locktest.Unlock(inner); err != nil {
		t.Fatal(err)
	}
	if got := holds(key); got != 1 {
		t.Fatalf("after the inner unlock: holds %d, want 1 (the outer's)", got)
	}
	if err := locktest.Unlock(outer); err != nil {
		t.Fatal(err)
	}
	if got := holds(key); got != 0 {
		t.Fatalf("after the last unlock the row is still there (holds %d)", got)
	}

	plainKey := key + ":plain"
	p := NewPlainLockTable(db, 10*time.Second)
	outer, err = within(p, holder, plainKey, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer locktest.Unlock(outer)
	if le, err := within(p, holder, plainKey, 300*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		if le != nil {
			locktest.Unlock(le)
		}
		t.Fatalf("db-lock-table-plain: a nested lock answered %v, want it to wait for itself until the bound", err)
	}
}
