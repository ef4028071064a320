package redisnaive

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// shortTTL is a lease short enough to run out within a test.
const shortTTL = 300 * time.Millisecond

type crashed struct{}

// A crash between SETNX and EXPIRE leaves a lock with no TTL: held forever.
// The crash is a panic here (the conformance suite SIGKILLs a child process
// at the same crash point); either way the EXPIRE never runs.
func TestSetNXExpireCrashLeavesNoTTL(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := NewSetNXExpire(rdb, shortTTL)

	pts := &faultpoint.Points{CrashDie: func() { panic(crashed{}) }}
	pts.ArmCrash()
	l.faults = pts
	func() {
		defer func() {
			if _, ok := recover().(crashed); !ok {
				t.Fatal("the crash hook was not called between SETNX and EXPIRE")
			}
		}()
		_, _ = l.Lock(context.Background(), key)
	}()

	ttl, err := rdb.Do(context.Background(), "TTL", key).Int64()
	if err != nil || ttl != -1 {
		t.Fatalf("TTL of the crashed holder's key: %d (%v), want -1 (exists, never expires)", ttl, err)
	}
	time.Sleep(shortTTL + 100*time.Millisecond)
	if le, err := locktest.LockWithin(l, key, 300*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		if le != nil {
			locktest.Unlock(le)
		}
		t.Fatalf("Lock after the TTL passed: %v, want DeadlineExceeded (the lock never expires)", err)
	}
}

// Without the crash, redis-setnx-expire does set the TTL and releases only
// its own lock.
func TestSetNXExpireNormalPath(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	l := NewSetNXExpire(rdb, shortTTL)
	a := locktest.MustLock(t, l, key)
	if pttl := rdb.PTTL(context.Background(), key).Val(); pttl <= 0 || pttl > shortTTL {
		t.Fatalf("PTTL %v, want in (0, %v]", pttl, shortTTL)
	}
	if !locktest.ClosedWithin(a.Lost(), shortTTL+time.Second) {
		t.Fatal("Lost not closed at the TTL")
	}
	b := locktest.MustLock(t, l, key)
	if err := locktest.Unlock(a); !errors.Is(err, lockstrategy.ErrNotHeld) {
		t.Fatalf("expired A's Unlock: %v, want ErrNotHeld", err)
	}
	if err := locktest.Unlock(b); err != nil {
		t.Fatalf("B's Unlock: %v", err)
	}
}

// The redis-no-owner pitfall: a holder whose lease expired deletes the next
// holder's lock with its plain DEL. The `redis` strategy, same situation,
// refuses.
func TestNoOwnerDeletesNextHoldersLock(t *testing.T) {
	rdb := testenv.Redis(t)
	for _, tc := range []struct {
		name    string
		l       lockstrategy.Locker
		deletes bool
	}{
		{"redis-no-owner", NewNoOwner(rdb, shortTTL), true},
		{"redis", redislock.New(rdb, lockstrategy.Options{TTL: shortTTL, NoRenewal: true}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := locktest.RedisKey(t, rdb)
			var mu sync.Mutex
			var aEvents []string // what A's lease told its observer
			actx := lockstrategy.WithLeaseObserver(context.Background(), func(e lockstrategy.LeaseEvent) {
				mu.Lock()
				aEvents = append(aEvents, e.Event)
				mu.Unlock()
			})
			a, err := tc.l.Lock(actx, key)
			if err != nil {
				t.Fatalf("A's Lock: %v", err)
			}
			if !locktest.ClosedWithin(a.Lost(), shortTTL+time.Second) {
				t.Fatal("A's lease did not end at the TTL")
			}
			b := locktest.MustLock(t, tc.l, key) // B holds the lock now
			bValue := rdb.Get(context.Background(), key).Val()
			staleErr := locktest.Unlock(a)
			gone := rdb.Exists(context.Background(), key).Val() == 0
			switch {
			case tc.deletes && !gone:
				t.Fatalf("stale Unlock (%v) left B's lock: the pitfall did not show", staleErr)
			case tc.deletes && staleErr != nil:
				t.Fatalf("stale Unlock reported %v; the plain DEL cannot know", staleErr)
			case !tc.deletes && (gone || rdb.Get(context.Background(), key).Val() != bValue):
				t.Fatal("owner-checked release deleted B's lock")
			case !tc.deletes && !errors.Is(staleErr, lockstrategy.ErrNotHeld):
				t.Fatalf("stale Unlock: %v, want ErrNotHeld", staleErr)
			}
			mu.Lock()
			freed, refused := slices.Contains(aEvents, lockstrategy.LeaseFreedOther), slices.Contains(aEvents, lockstrategy.LeaseReleaseRefused)
			mu.Unlock()
			if freed != tc.deletes || refused == tc.deletes {
				t.Fatalf("A's lease events %v: want %s", aEvents, map[bool]string{true: "freed_other (B's lock deleted, counted)",
					false: "release_refused and no freed_other"}[tc.deletes])
			}
			if tc.deletes {
				c := locktest.MustLock(t, tc.l, key) // a third buyer walks in beside B
				locktest.Unlock(c)
			}
			locktest.Unlock(b)
		})
	}
}

func TestRegistered(t *testing.T) {
	locktest.CheckRegistered(t, map[string]lockstrategy.Strategy{
		"redis-setnx-expire": {Safe: false, Expiry: lockstrategy.ExpiryTTL},
		"redis-no-owner":     {Safe: false, Expiry: lockstrategy.ExpiryTTL},
	})
}
