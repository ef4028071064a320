package zklock

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// newLocker opens a Locker on the real ZooKeeper, closed at cleanup.
func newLocker(t testing.TB, sessionTimeout time.Duration) *Locker {
	t.Helper()
	l, err := New(testenv.ZKServers(t), sessionTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// children lists key's queue as the server has it.
func children(t *testing.T, l *Locker, key string) []string {
	t.Helper()
	c, _, err := l.conn.Children(Root + "/" + escapeKey(key))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMutualExclusion(t *testing.T) {
	lockers := []*Locker{newLocker(t, 0), newLocker(t, 0)} // two sessions: two processes, in effect
	key := locktest.Key(t)
	const goroutines, rounds = 6, 25
	var counter, inside, overlaps atomic.Int64
	var lastToken atomic.Uint64
	var badTokens atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range rounds {
				le, err := locktest.LockWithin(lockers[g%2], key, 20*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				if le.Token() <= lastToken.Load() {
					badTokens.Add(1)
				}
				lastToken.Store(le.Token())
				v := counter.Load()
				time.Sleep(100 * time.Microsecond)
				counter.Store(v + 1)
				inside.Add(-1)
				if err := locktest.Unlock(le); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if counter.Load() != goroutines*rounds || overlaps.Load() != 0 || badTokens.Load() != 0 {
		t.Fatalf("counter %d of %d, %d overlaps, %d non-increasing tokens",
			counter.Load(), goroutines*rounds, overlaps.Load(), badTokens.Load())
	}
}

// TestWaitersServedInCreationOrder: 10 waiters queue one after another behind
// a holder; each is served in turn, and each release wakes one waiter only.
func TestWaitersServedInCreationOrder(t *testing.T) {
	l := newLocker(t, 0)
	key := locktest.Key(t)
	holder, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	const waiters = 10
	var mu sync.Mutex
	var served []int
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			le, err := locktest.LockWithin(l, key, 20*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			served = append(served, i)
			mu.Unlock()
			if err := locktest.Unlock(le); err != nil {
				t.Error(err)
			}
		})
		// Queue the next waiter only once this one's node exists.
		testenv.WaitFor(t, 5*time.Second, "waiter's node", func() bool { return len(children(t, l, key)) == i+2 })
	}
	if err := locktest.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(served, want) {
		t.Fatalf("served in order %v, want creation order %v", served, want)
	}
	// Watching the whole directory would wake every waiter at each release
	// (10+9+...+1 = 55 wake-ups); watching the predecessor wakes one.
	if w := l.wakeups.Load(); w > waiters {
		t.Fatalf("%d wake-ups for %d releases: a herd", w, waiters)
	}
	if n := len(children(t, l, key)); n != 0 {
		t.Fatalf("%d nodes left in the queue", n)
	}
}

func TestCtxCancelDeletesWaitersNode(t *testing.T) {
	l := newLocker(t, 0)
	key := locktest.Key(t)
	holder, err := locktest.LockWithin(l, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		ctx, cancel := c.ctx()
		start := time.Now()
		_, err := l.Lock(ctx, key)
		cancel()
		if !errors.Is(err, c.want) {
			t.Fatalf("%s: Lock returned %v, want %v", c.name, err, c.want)
		}
		if took := time.Since(start); took > 200*time.Millisecond+time.Second {
			t.Fatalf("%s: returned after %v", c.name, took)
		}
		if n := len(children(t, l, key)); n != 1 {
			t.Fatalf("%s: %d nodes in the queue after the waiter gave up, want the holder's only", c.name, n)
		}
	}
	if err := locktest.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	le, err := locktest.LockWithin(l, key, 2*time.Second)
	if err != nil {
		t.Fatalf("lock after the holder left: %v", err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
}

// TestTokenGrows: czxid grows with every acquisition, across sessions, and
// even after the key's directory is deleted and created again, where the
// sequence number starts over (the reason the token is czxid).
func TestTokenGrows(t *testing.T) {
	a, b := newLocker(t, 0), newLocker(t, 0)
	key := locktest.Key(t)
	var last uint64
	lastSeq := int64(-1)
	for i := range 8 {
		l := []*Locker{a, b}[i%2]
		le, err := locktest.LockWithin(l, key, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		seq, _ := sequence(le.(*lease).node)
		if le.Token() <= last {
			t.Fatalf("acquisition %d: token %d after %d", i, le.Token(), last)
		}
		if i == 4 && seq >= lastSeq {
			t.Fatalf("the sequence did not restart with the directory (%d after %d)", seq, lastSeq)
		}
		last, lastSeq = le.Token(), seq
		if err := locktest.Unlock(le); err != nil {
			t.Fatal(err)
		}
		if i == 3 { // nobody queues: drop the directory
			if err := a.conn.Delete(Root+"/"+escapeKey(key), -1); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestUnlockTwice(t *testing.T) {
	l := newLocker(t, 0)
	le, err := locktest.LockWithin(l, locktest.Key(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("second Unlock: %v, want ErrNotHeld", err)
	}
}

func TestKeysWithSlashes(t *testing.T) {
	names := map[string]bool{}
	for _, k := range []string{"sale:1", "sale/1", "sale%2F1", "", ".", "..", "%", "a b/ü"} {
		n := escapeKey(k)
		if names[n] {
			t.Fatalf("escapeKey(%q) = %q collides", k, n)
		}
		names[n] = true
		if err := zkValidName(n); err != nil {
			t.Fatalf("escapeKey(%q) = %q: %v", k, n, err)
		}
	}
	l := newLocker(t, 0)
	le, err := locktest.LockWithin(l, "sale/"+locktest.Key(t), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
}

// zkValidName checks what the server would refuse in one znode name.
func zkValidName(n string) error {
	if n == "" || n == "." || n == ".." {
		return errors.New("reserved name")
	}
	for _, r := range n {
		if r == '/' || r < 0x20 || r > 0x7e {
			return fmt.Errorf("character %q", r)
		}
	}
	return nil
}

func TestRegistered(t *testing.T) {
	s, err := lockstrategy.Lookup("zookeeper")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Safe || !s.Tokens || s.Expiry != lockstrategy.ExpirySession {
		t.Fatalf("registered metadata %+v", s)
	}
}

// BenchmarkLockUnlock measures the uncontended round trip, Lock then Unlock,
// and reports its median:
//
//	go test -run '^$' -bench LockUnlock -benchtime 500x ./internal/lockstrategy/zklock/
func BenchmarkLockUnlock(b *testing.B) {
	l := newLocker(b, 0)
	locktest.BenchLockUnlock(b, l, locktest.Key(b))
}
