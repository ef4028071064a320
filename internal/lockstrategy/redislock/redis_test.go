package redislock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

const shortTTL = 300 * time.Millisecond

func TestRegistered(t *testing.T) {
	locktest.CheckRegistered(t, map[string]lockstrategy.Strategy{
		"redis":            {Safe: true, Tokens: true, Expiry: lockstrategy.ExpiryTTL},
		"redis-aggressive": {Safe: false, Tokens: true, Expiry: lockstrategy.ExpiryTTL},
	})
}

// redis-aggressive's lease signals its loss as redis's does (Lost closes at
// its TTL here); going on is its holder's policy, which the strategy
// declares (GoesOnWhenLost) and the order flow acts on.
func TestAggressiveLeaseSignalsTheLoss(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	s, err := lockstrategy.Lookup("redis-aggressive")
	if err != nil {
		t.Fatal(err)
	}
	if !s.GoesOnWhenLost {
		t.Fatal("redis-aggressive does not declare that its holder goes on after a lost lease")
	}
	l, err := s.NewLocker(lockstrategy.Backends{Redis: rdb}, lockstrategy.Options{TTL: shortTTL, NoRenewal: true})
	if err != nil {
		t.Fatal(err)
	}
	le := locktest.MustLock(t, l, key)
	defer locktest.Unlock(le)
	if !locktest.ClosedWithin(le.Lost(), 10*shortTTL) {
		t.Fatal("the aggressive holder's lease never signalled its loss")
	}
	if le.Token() == 0 {
		t.Error("the aggressive lease lost its fencing token")
	}
}

func TestDefaultTTL(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	le := locktest.MustLock(t, New(rdb, lockstrategy.Options{NoRenewal: true}), key)
	defer locktest.Unlock(le)
	pttl := rdb.PTTL(context.Background(), key).Val()
	if pttl <= DefaultTTL/2 || pttl > DefaultTTL {
		t.Fatalf("PTTL %v, want about DefaultTTL %v", pttl, DefaultTTL)
	}
}

// The watchdog keeps a lease held for over 3x its TTL alive, and nobody
// else can take it meanwhile.
func TestWatchdogKeepsLeaseAlive(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: shortTTL})
	le := locktest.MustLock(t, l, key)
	time.Sleep(3*shortTTL + 200*time.Millisecond)
	if locktest.IsClosed(le.Lost()) {
		t.Fatal("Lost closed while the watchdog renewed the lease")
	}
	if got := rdb.Get(context.Background(), key).Val(); got != le.(*lease).id {
		t.Fatalf("lock value %q after 3x TTL, want the holder's %q", got, le.(*lease).id)
	}
	if other, err := locktest.LockWithin(l, key, 200*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		if other != nil {
			locktest.Unlock(other)
		}
		t.Fatalf("second Lock while held: %v, want DeadlineExceeded", err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	if n := rdb.Exists(context.Background(), key).Val(); n != 0 {
		t.Fatal("key still exists after Unlock")
	}
	if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("second Unlock: %v, want ErrNotHeld", err)
	}
}

// With NoRenewal the lease ends at its TTL, Lost says so, and the lock can be
// taken by the next buyer: the pitfall fencing exists for.
func TestNoRenewalLeaseExpires(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: shortTTL, NoRenewal: true})
	a := locktest.MustLock(t, l, key)
	if !locktest.ClosedWithin(a.Lost(), shortTTL+time.Second) {
		t.Fatal("Lost not closed within TTL + 1s without renewal")
	}
	b, err := locktest.LockWithin(l, key, 2*time.Second)
	if err != nil {
		t.Fatalf("B could not take the expired lock: %v", err)
	}
	if b.Token() <= a.Token() {
		t.Fatalf("B's token %d not above A's %d", b.Token(), a.Token())
	}
	if err := locktest.Unlock(a); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("expired A's Unlock: %v, want ErrNotHeld", err)
	}
	if got := rdb.Get(context.Background(), key).Val(); got != b.(*lease).id {
		t.Fatalf("A's stale Unlock touched B's lock: value %q", got)
	}
	if err := locktest.Unlock(b); err != nil {
		t.Fatal(err)
	}
}

// The watchdog notices a lock deleted or taken over behind the holder's back.
func TestLostWhenKeyChangedOutside(t *testing.T) {
	rdb := testenv.Redis(t)
	for name, change := range map[string]func(ctx context.Context, key string) error{
		"deleted":     func(ctx context.Context, key string) error { return rdb.Del(ctx, key).Err() },
		"overwritten": func(ctx context.Context, key string) error { return rdb.Set(ctx, key, "intruder", 0).Err() },
	} {
		t.Run(name, func(t *testing.T) {
			key := locktest.RedisKey(t, rdb)
			le := locktest.MustLock(t, New(rdb, lockstrategy.Options{TTL: shortTTL}), key)
			if err := change(context.Background(), key); err != nil {
				t.Fatal(err)
			}
			if !locktest.ClosedWithin(le.Lost(), shortTTL+time.Second) {
				t.Fatal("Lost not closed after the key was " + name)
			}
			if err := locktest.Unlock(le); !errors.Is(err, lockstrategy.ErrNotHeld) {
				t.Fatalf("Unlock: %v, want ErrNotHeld", err)
			}
			if name == "overwritten" && rdb.Get(context.Background(), key).Val() != "intruder" {
				t.Fatal("Unlock deleted a lock it did not own")
			}
		})
	}
}

// Tokens strictly grow with every acquisition, direct or handed over.
func TestTokenGrows(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	var (
		mu     sync.Mutex
		tokens []uint64
		wg     sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				le, err := locktest.LockWithin(l, key, 10*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				tokens = append(tokens, le.Token())
				mu.Unlock()
				if err := locktest.Unlock(le); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(tokens) != 200 {
		t.Fatalf("%d acquisitions, want 200", len(tokens))
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] <= tokens[i-1] {
			t.Fatalf("token %d at acquisition %d not above %d", tokens[i], i, tokens[i-1])
		}
	}
}

// TestTokenStrideReservesTokens: with a stride of n, an acquisition that
// got token t leaves t..t+n-1 to its holder; the next one, from any
// Locker, handed over or taken free, gets t+n or more.
func TestTokenStrideReservesTokens(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	a, b := New(rdb, lockstrategy.Options{}), New(rdb, lockstrategy.Options{})
	a.SetTokenStride(9)
	b.SetTokenStride(9)
	// The counter far above the server's clock in µs: tokens then come
	// from it (+1 without a stride), not from the clock, which moves on by
	// more than 9 µs between two acquisitions anyway.
	ahead := time.Now().Add(24 * time.Hour).UnixMicro()
	if err := rdb.Set(context.Background(), key+":fence", ahead, 0).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Del(context.Background(), key+":fence") })
	first := locktest.MustLock(t, a, key)
	handed := make(chan lockstrategy.Lease, 1)
	go func() { handed <- locktest.MustLock(t, b, key) }()
	testenv.WaitFor(t, 10*time.Second, "b queued", func() bool {
		return rdb.LLen(context.Background(), key+":q").Val() == 1
	})
	locktest.Unlock(first)
	second := <-handed // handed over by first's release script
	if second.Token() < first.Token()+9 {
		t.Fatalf("hand-over token %d, want >= %d (first %d + stride 9)", second.Token(), first.Token()+9, first.Token())
	}
	locktest.Unlock(second)
	third := locktest.MustLock(t, a, key) // taken free by the acquire script
	if third.Token() < second.Token()+9 {
		t.Fatalf("free acquisition token %d, want >= %d", third.Token(), second.Token()+9)
	}
	locktest.Unlock(third)
}
