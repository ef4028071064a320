package dblock

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
)

// An armed crash (crash_after_setnx) kills the next acquisition right
// after its INSERT: Lock says ErrHolderCrashed and the row stays, as a dead
// process leaves it, until a waiter deletes it past its expires_at; ReadRow
// sees it there, then gone.
func TestCrashLeavesTheRowUntilItExpires(t *testing.T) {
	db := tableDB(t)
	ctx := context.Background()
	key := fmt.Sprintf("crash:%d", time.Now().UnixNano())
	l := NewPlainLockTable(db, 500*time.Millisecond)
	pts := &faultpoint.Points{}
	pts.ArmCrash()
	l.faults = pts
	if _, err := l.Lock(ctx, key); !errors.Is(err, lockstrategy.ErrHolderCrashed) {
		t.Fatalf("armed crash: Lock = %v, want ErrHolderCrashed", err)
	}
	row, err := ReadRow(ctx, db, key)
	if err != nil {
		t.Fatal(err)
	}
	if !row.Present || row.Holds != 1 || row.Owner == "" || row.ExpiresInMS > 500 {
		t.Fatalf("the crashed holder's row: %+v, want present, holds 1, expiring within 500 ms", row)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	le, err := l.Lock(wctx, key) // reclaims the row once it has expired
	if err != nil {
		t.Fatalf("a waiter after the crash: %v", err)
	}
	if got, err := ReadRow(ctx, db, key); err != nil || !got.Present || got.Owner == row.Owner {
		t.Fatalf("the waiter's row: %+v (%v), want present with a new owner (the crashed one's was %q)", got, err, row.Owner)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRow(ctx, db, key); err != nil || got.Present {
		t.Fatalf("after the unlock: %+v (%v), want no row", got, err)
	}
}
