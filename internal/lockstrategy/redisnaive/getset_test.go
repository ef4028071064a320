package redisnaive

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestGetSetClientClocksMustAgree: clients' clocks must agree, measured. A
// holds with a 10 s lease written by its own clock; B's clock runs 11 s
// ahead, reads A's expiry as past, takes the lock over with GETSET: two
// holders at once. With agreeing clocks B waits.
func TestGetSetClientClocksMustAgree(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.Key(t)
	a := NewGetSet(rdb, 10*time.Second)
	la, err := locktest.LockWithin(a, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer locktest.Unlock(la)
	if lb, err := locktest.LockWithin(NewGetSet(rdb, 10*time.Second), key, 300*time.Millisecond); err == nil {
		locktest.Unlock(lb)
		t.Fatal("B with an agreeing clock took A's live lock")
	}
	ahead := NewGetSet(rdb, 10*time.Second).WithClockSkew(11 * time.Second)
	lb, err := locktest.LockWithin(ahead, key, 2*time.Second)
	if err != nil {
		t.Fatalf("B, 11 s ahead, did not take the lock (the pitfall did not show): %v", err)
	}
	defer locktest.Unlock(lb)
	select {
	case <-la.Lost():
		t.Fatal("A's lease ended: the overlap would not be real")
	default:
	}
	t.Log("A and B both hold the lock: B's clock is 11 s ahead of A's")
}

// TestGetSetLoserOverwritesTheExpiry: the loser's GETSET still writes. A's lock
// expired; B and C both read the old expiry; B's GETSET wins; C's GETSET
// loses but has written C's expiry over B's. B then cannot even release
// its own lock (its GET finds C's value), which stays until C's expiry.
func TestGetSetLoserOverwritesTheExpiry(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	key := locktest.Key(t)
	expired := time.Now().Add(-time.Second).UnixMilli()
	if err := rdb.Set(ctx, key, expired, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	b := NewGetSet(rdb, 5*time.Second)
	c := NewGetSet(rdb, 5*time.Second).WithClockSkew(time.Second) // C's expiry differs from B's
	bOK, bMine, err := b.tryLock(ctx, key)                        // B reads the expired value and wins its GETSET
	if err != nil || !bOK {
		t.Fatalf("B: ok=%v err=%v", bOK, err)
	}
	// C had read the same expired value before B's GETSET: replay it. The
	// key goes back to the expired value for C's GET, and B's value is put
	// back before C's GETSET, as B's GETSET landed in between.
	if err := rdb.Set(ctx, key, expired, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	c.betweenGetAndGetSet = func() {
		if err := rdb.Set(ctx, key, bMine, time.Minute).Err(); err != nil { // B's GETSET landed first
			t.Error(err)
		}
	}
	cOK, cMine, err := c.tryLock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if cOK {
		t.Fatal("C won although B's GETSET came first")
	}
	got, _ := rdb.Get(ctx, key).Result()
	if got != cMine || got == bMine {
		t.Fatalf("the key holds %q; want the loser C's expiry %q over the winner B's %q", got, cMine, bMine)
	}
	if err := b.release(ctx, key, bMine); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("B's release: %v; want ErrNotHeld (its GET finds C's value)", err)
	}
	t.Logf("winner B wrote %s, loser C overwrote it with %s; B cannot release its own lock", bMine, cMine)
}

// TestGetSetTwoStepReleaseFreesTheNextHolder: the release is GET then DEL.
// Between the two, A's lock expires and B takes it over; A's DEL then
// deletes B's lock and C walks in beside B.
func TestGetSetTwoStepReleaseFreesTheNextHolder(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.Key(t)
	a := NewGetSet(rdb, 300*time.Millisecond)
	la, err := locktest.LockWithin(a, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var lb lockstrategy.Lease
	a.betweenGetAndDel = func() {
		// A's GET saw its own value; now its lease runs out and B takes over.
		lb, err = locktest.LockWithin(NewGetSet(rdb, 10*time.Second), key, 10*time.Second)
		if err != nil {
			t.Errorf("B: %v", err)
		}
	}
	if err := locktest.Unlock(la); err != nil {
		t.Fatalf("A's release: %v", err)
	}
	if lb == nil {
		t.FailNow()
	}
	defer locktest.Unlock(lb)
	lc, err := locktest.LockWithin(NewGetSet(rdb, 10*time.Second), key, 2*time.Second)
	if err != nil {
		t.Fatalf("C did not get in: A's DEL did not free B's lock (%v)", err)
	}
	defer locktest.Unlock(lc)
	t.Log("B and C both hold the lock: A's DEL, after its GET, deleted B's")
}

// The clock_skew fault (faultpoint.Points.SetClockSkew) moves the clock of
// the replica's redis-getset locks, on top of a lock's own skew, and 0 puts
// it right again.
func TestClockSkewMovesTheReplicasClock(t *testing.T) {
	pts := &faultpoint.Points{}
	l := NewGetSet(nil, time.Second).WithClockSkew(time.Second)
	l.faults = pts
	pts.SetClockSkew(5 * time.Second)
	ahead := time.Until(l.now())
	pts.SetClockSkew(0)
	back := time.Until(l.now())
	if ahead < 5500*time.Millisecond || ahead > 6010*time.Millisecond || back < 500*time.Millisecond || back > 1010*time.Millisecond {
		t.Fatalf("clock ahead by %v with the process skew, %v without; want 6 s and 1 s", ahead, back)
	}
}

// waitHeldGaps waits until n gaps are held open in this process.
func waitHeldGaps(t *testing.T, n int64) {
	t.Helper()
	testenv.WaitFor(t, 30*time.Second, "a redis-getset gap held open", func() bool { return GetSetGaps().Held == n })
}

// The release gap (the lessons' fault getset_release_gap): A's release,
// between its GET and its DEL, waits until the lock changes hands; B takes
// the expired lock over; A's DEL deletes B's lock and C walks in beside B.
// A's release is not refused: it found its own value.
func TestReleaseGapDeletesTheNextHoldersLock(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.Key(t)
	before := GetSetGaps()
	pts := &faultpoint.Points{}
	ga := NewGetSet(rdb, 300*time.Millisecond)
	ga.faults = pts
	la, err := locktest.LockWithin(ga, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pts.ArmGap(faultpoint.ReleaseGap, time.Minute)
	released := make(chan error, 1)
	go func() { released <- la.Unlock(context.Background()) }()
	waitHeldGaps(t, 1)
	lb, err := locktest.LockWithin(NewGetSet(rdb, 10*time.Second), key, 10*time.Second)
	if err != nil {
		t.Fatalf("B did not take A's expired lock over: %v", err)
	}
	defer locktest.Unlock(lb)
	if err := <-released; err != nil {
		t.Fatalf("A's release: %v (it found its own value: it should DEL)", err)
	}
	lc, err := locktest.LockWithin(NewGetSet(rdb, 10*time.Second), key, 2*time.Second)
	if err != nil {
		t.Fatalf("C did not get in: A's DEL did not free B's lock (%v)", err)
	}
	defer locktest.Unlock(lc)
	if after := GetSetGaps(); after.Held != 0 || after.RefusedReleases != before.RefusedReleases || after.FreedOthers-before.FreedOthers != 1 {
		t.Errorf("gaps %+v after, %+v before: want none held, no refused release, one lock of another freed", after, before)
	}
}

// The takeover gap (fault getset_takeover_gap): C reads A's expired value
// and waits before its GETSET until B's GETSET has won; C's GETSET then
// loses and writes C's expiry over B's (an overwrite counted); B's release
// finds C's value and is refused (counted): the lock stays until C's expiry.
func TestTakeoverGapLoserOverwritesTheWinner(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	key := locktest.Key(t)
	if err := rdb.Set(ctx, key, time.Now().Add(-time.Second).UnixMilli(), time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	before := GetSetGaps()
	pts := &faultpoint.Points{}
	pts.ArmGap(faultpoint.TakeoverGap, time.Minute)
	c := NewGetSet(rdb, 20*time.Second)
	c.faults = pts
	cDone := make(chan bool, 1)
	go func() {
		ok, _, err := c.tryLock(ctx, key)
		if err != nil {
			t.Error(err)
		}
		cDone <- ok
	}()
	waitHeldGaps(t, 1)
	lb, err := locktest.LockWithin(NewGetSet(rdb, 5*time.Second), key, 5*time.Second)
	if err != nil {
		t.Fatalf("B did not take the expired lock over: %v", err)
	}
	if ok := <-cDone; ok {
		t.Fatal("C's GETSET won after B's: the gap did not hold")
	}
	if err := locktest.Unlock(lb); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("B's release: %v; want ErrNotHeld (C's value is in the key)", err)
	}
	after := GetSetGaps()
	if after.Overwrites-before.Overwrites != 1 || after.RefusedReleases-before.RefusedReleases != 1 || after.Held != 0 {
		t.Errorf("gaps %+v after, %+v before: want one overwrite, one refused release, none held", after, before)
	}
}

// crash_after_setnx fires in redis-getset too: the holder takes the lock and
// dies; the key keeps its expiry, which frees it.
func TestGetSetCrashAfterTakingTheLock(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.Key(t)
	l := NewGetSet(rdb, 300*time.Millisecond)
	pts := &faultpoint.Points{}
	pts.ArmCrash()
	l.faults = pts
	if _, err := locktest.LockWithin(l, key, 5*time.Second); !errors.Is(err, lockstrategy.ErrHolderCrashed) {
		t.Fatalf("armed crash: %v, want ErrHolderCrashed", err)
	}
	if n, err := rdb.Exists(context.Background(), key).Result(); err != nil || n != 1 {
		t.Fatalf("the crashed holder's key: exists %d, %v; want it left behind", n, err)
	}
	lb, err := locktest.LockWithin(l, key, 10*time.Second)
	if err != nil {
		t.Fatalf("the next holder, after the dead one's expiry: %v", err)
	}
	locktest.Unlock(lb)
}
