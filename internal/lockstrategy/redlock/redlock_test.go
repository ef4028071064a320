package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredislib "github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// newLocker builds a Locker over masters, failing the test on error.
func newLocker(t *testing.T, masters []*goredislib.Client, o lockstrategy.Options) *Locker {
	t.Helper()
	l, err := New(masters, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// deadMaster is a client of a closed port: a master that is down. go-redis
// logs every failed dial; the tests silence it.
func deadMaster(t testing.TB) *goredislib.Client {
	goredislib.SetLogger(quiet{})
	c := goredislib.NewClient(&goredislib.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	return c
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// exclusion runs goroutines x rounds read-sleep-write increments under the
// lock, spread over lockers, and fails on a lost increment or an overlap.
func exclusion(t *testing.T, lockers []*Locker, goroutines, rounds int) {
	t.Helper()
	key := locktest.Key(t)
	var counter, inside, overlaps atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			l := lockers[g%len(lockers)]
			for range rounds {
				le, err := locktest.LockWithin(l, key, 20*time.Second)
				if err != nil {
					errs <- err
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				v := counter.Load()
				time.Sleep(100 * time.Microsecond)
				counter.Store(v + 1)
				inside.Add(-1)
				if err := locktest.Unlock(le); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got, want := counter.Load(), int64(goroutines*rounds); got != want || overlaps.Load() != 0 {
		t.Fatalf("counter %d, want %d; %d overlapping critical sections", got, want, overlaps.Load())
	}
}

func TestMutualExclusion(t *testing.T) {
	masters := testenv.Redlock(t)
	a := newLocker(t, masters, lockstrategy.Options{})
	b := newLocker(t, masters, lockstrategy.Options{}) // a second process, in effect
	exclusion(t, []*Locker{a, b}, 6, 25)
}

func TestOneMasterDownStillExcludes(t *testing.T) {
	masters := testenv.Redlock(t)
	clients := []*goredislib.Client{masters[0], masters[1], deadMaster(t)}
	a := newLocker(t, clients, lockstrategy.Options{})
	b := newLocker(t, clients, lockstrategy.Options{})
	exclusion(t, []*Locker{a, b}, 4, 15)
	// The dead master is skipped, not waited for (pool.go).
	if time.Now().UnixNano() >= a.health.downUntil[2].Load() {
		t.Fatal("the dead master is not marked down")
	}
	if time.Now().UnixNano() < a.health.downUntil[0].Load() {
		t.Fatal("a live master is marked down")
	}

	// The watchdog keeps a quorum of 2 of 3 extended past several TTLs. A
	// renewal every ttl/3 leaves 600 ms of slack for a loaded machine.
	const ttl = 900 * time.Millisecond
	l := newLocker(t, clients, lockstrategy.Options{TTL: ttl})
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-le.Lost():
		t.Fatal("lease lost while two of three masters renewed it")
	case <-time.After(4 * ttl):
	}
	if _, err := locktest.LockWithin(l, key, ttl); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Lock while held: %v, want DeadlineExceeded", err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
}

func TestNoQuorumGivesUp(t *testing.T) {
	masters := testenv.Redlock(t)
	const ttl = 300 * time.Millisecond
	l := newLocker(t, []*goredislib.Client{masters[0], deadMaster(t), deadMaster(t)}, lockstrategy.Options{TTL: ttl})
	start := time.Now()
	_, err := locktest.LockWithin(l, locktest.Key(t), 10*time.Second)
	if !errors.Is(err, lockstrategy.ErrNotAcquired) {
		t.Fatalf("Lock with 2 of 3 masters down: %v, want ErrNotAcquired", err)
	}
	if took := time.Since(start); took > ttl+2*time.Second {
		t.Fatalf("gave up after %v, want about the TTL (%v)", took, ttl)
	}
}

func TestLostWhenKeysDeletedOnMajority(t *testing.T) {
	masters := testenv.Redlock(t)
	const ttl = 600 * time.Millisecond
	l := newLocker(t, masters, lockstrategy.Options{TTL: ttl})
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range masters[:2] { // a majority forgets the lock (restarts without persistence)
		if err := m.Del(ctx, keyPrefix+key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-le.Lost():
	case <-time.After(ttl + time.Second):
		t.Fatal("Lost not closed after the keys were deleted on a majority")
	}
	// The majority that forgot is enough for the next holder...
	other, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatalf("lock after the majority forgot: %v", err)
	}
	// ...and the old lease cannot release it.
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("stale Unlock: %v, want ErrNotHeld", err)
	}
	if _, err := locktest.LockWithin(l, key, 200*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stale Unlock freed the new holder's lock: %v", err)
	}
	if err := locktest.Unlock(other); err != nil {
		t.Fatal(err)
	}
}

func TestNoRenewalLostAtTTL(t *testing.T) {
	masters := testenv.Redlock(t)
	const ttl = 300 * time.Millisecond
	l := newLocker(t, masters, lockstrategy.Options{TTL: ttl, NoRenewal: true})
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-le.Lost():
	case <-time.After(ttl + time.Second):
		t.Fatal("Lost not closed at TTL without renewal")
	}
	// The keys expired: someone else takes the lock while "held".
	other, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("Unlock of an expired lease: %v, want ErrNotHeld", err)
	}
	if err := locktest.Unlock(other); err != nil {
		t.Fatal(err)
	}
}

func TestCtxCancelReturnsPromptly(t *testing.T) {
	masters := testenv.Redlock(t)
	l := newLocker(t, masters, lockstrategy.Options{TTL: 10 * time.Second})
	key := locktest.Key(t)
	holder, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := l.Lock(ctx, key); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("cancelled waiter returned after %v", took)
	}
	if err := locktest.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	// Nothing of the waiter is left on any master (Unlock returns at quorum:
	// the last master's delete may still be on its way).
	deadline := time.Now().Add(time.Second)
	for i, m := range masters {
		for {
			n, err := m.Exists(context.Background(), keyPrefix+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("master %d: key left after the holder unlocked and the waiter gave up", i)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestUnlockTwice(t *testing.T) {
	l := newLocker(t, testenv.Redlock(t), lockstrategy.Options{})
	le, err := locktest.LockWithin(l, locktest.Key(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if le.Token() != 0 {
		t.Fatalf("Token %d: redlock has no fencing token", le.Token())
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("second Unlock: %v, want ErrNotHeld", err)
	}
}

func TestTooFewMasters(t *testing.T) {
	masters := testenv.Redlock(t)
	if _, err := New(masters[:2], lockstrategy.Options{}); !errors.Is(err, ErrTooFewMasters) {
		t.Fatalf("New with 2 masters: %v, want ErrTooFewMasters", err)
	}
	s, err := lockstrategy.Lookup("redlock")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Safe || s.Tokens || s.Expiry != lockstrategy.ExpiryTTL {
		t.Fatalf("registered metadata %+v", s)
	}
}

// BenchmarkLockUnlock measures the uncontended round trip, Lock then Unlock,
// with all masters up and with one of three down, and reports its median:
//
//	go test -run '^$' -bench LockUnlock -benchtime 500x ./internal/lockstrategy/redlock/
func BenchmarkLockUnlock(b *testing.B) {
	masters := testenv.Redlock(b)
	for _, c := range []struct {
		name    string
		masters []*goredislib.Client
	}{
		{"all-up", masters},
		{"one-down", []*goredislib.Client{masters[0], masters[1], deadMaster(b)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l, err := New(c.masters, lockstrategy.Options{})
			if err != nil {
				b.Fatal(err)
			}
			locktest.BenchLockUnlock(b, l, fmt.Sprintf("bench:%d", time.Now().UnixNano()))
		})
	}
}

// A holder's release waits for slow masters up to the TTL: a release cut
// at one round's bound (5% of the TTL) on a busy machine left the keys,
// and the lock held, until they expired. The masters are the test's own:
// CLIENT PAUSE stalls every client of a server.
func TestReleaseWaitsForSlowMasters(t *testing.T) {
	const ttl, pause = 10 * time.Second, 2 * time.Second // one round: 500 ms
	var masters []*goredislib.Client
	for _, addr := range testenv.PrivateRedis(t, 3) {
		c := goredislib.NewClient(lockstrategy.RedlockOptions(addr, 8))
		t.Cleanup(func() { c.Close() })
		masters = append(masters, c)
	}
	l := newLocker(t, masters, lockstrategy.Options{TTL: ttl})
	key := locktest.Key(t)
	le, err := locktest.LockWithin(l, key, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range masters { // writes (the release's EVAL) wait out the pause
		if err := m.Do(ctx, "CLIENT", "PAUSE", pause.Milliseconds(), "WRITE").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatalf("release behind a %v pause: %v, want it done (the TTL is %v)", pause, err, ttl)
	}
	for i, m := range masters {
		if n, err := m.Exists(ctx, keyPrefix+key).Result(); err != nil || n != 0 {
			t.Errorf("master %d still holds the key after the release (exists %d, err %v)", i, n, err)
		}
	}
}
