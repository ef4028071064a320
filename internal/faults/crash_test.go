package faults_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

const crashTTL = 300 * time.Millisecond

// crashEnv is a private Redis and strategies over it: the crashed locks are
// left in it on purpose.
func crashEnv(t *testing.T) (*redis.Client, *lockstrategy.Instances, *faults.Service) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: testenv.PrivateRedis(t, 1)[0]})
	t.Cleanup(func() { rdb.Close() })
	pts := &faultpoint.Points{}
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{Redis: rdb, Faults: pts})
	t.Cleanup(func() { lockers.Close() })
	f := faults.New(faults.Config{Enabled: true, Points: pts}, nil)
	t.Cleanup(func() { f.DisarmCrash() }) // an unfired crash stays with this test's strategies
	return rdb, lockers, f
}

// redis-setnx-expire crashed between SETNX and EXPIRE: the key has no TTL
// (PTTL -1), so after the TTL the lock is still taken: the next Lock, not
// crashed itself (one-shot), times out.
func TestCrashAfterSetNXLeavesDeadLock(t *testing.T) {
	rdb, lockers, f := crashEnv(t)
	l, err := lockers.Locker("redis-setnx-expire", lockstrategy.Options{TTL: crashTTL})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CrashAfterSetNX(); err != nil {
		t.Fatal(err)
	}
	const key = "crash-setnx"
	if le, err := locktest.LockWithin(l, key, 5*time.Second); !errors.Is(err, lockstrategy.ErrHolderCrashed) {
		if le != nil {
			le.Unlock(context.Background())
		}
		t.Fatalf("armed Lock: %v, want ErrHolderCrashed", err)
	}
	if pttl, err := rdb.Do(context.Background(), "PTTL", key).Int64(); err != nil || pttl != -1 {
		t.Fatalf("PTTL of the crashed holder's key: %d (%v), want -1: no TTL", pttl, err)
	}
	time.Sleep(crashTTL + 100*time.Millisecond)
	if le, err := locktest.LockWithin(l, key, 500*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		if le != nil {
			le.Unlock(context.Background())
		}
		t.Fatalf("Lock after the TTL: %v, want DeadlineExceeded (the dead lock never expires)", err)
	}
}

// `redis` crashed right after SET NX PX: the key keeps its TTL and nobody
// renews it, so the next Lock (not crashed: one-shot) gets it once the TTL
// has run out.
func TestCrashAfterSetNXRedisExpires(t *testing.T) {
	rdb, lockers, f := crashEnv(t)
	l, err := lockers.Locker("redis", lockstrategy.Options{TTL: crashTTL})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CrashAfterSetNX(); err != nil {
		t.Fatal(err)
	}
	const key = "crash-redis"
	if _, err := locktest.LockWithin(l, key, 5*time.Second); !errors.Is(err, lockstrategy.ErrHolderCrashed) {
		t.Fatalf("armed Lock: %v, want ErrHolderCrashed", err)
	}
	if pttl, err := rdb.PTTL(context.Background(), key).Result(); err != nil || pttl <= 0 || pttl > crashTTL {
		t.Fatalf("PTTL of the crashed holder's key: %v (%v), want in (0, %v]", pttl, err, crashTTL)
	}
	le, err := locktest.LockWithin(l, key, 5*time.Second) // generous liveness bound
	if err != nil {
		t.Fatalf("Lock after the crashed holder's TTL: %v", err)
	}
	if err := le.Unlock(context.Background()); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	if f.CrashArmed() {
		t.Fatal("the crash is still armed after it fired")
	}
}

// One armed crash, many concurrent acquisitions: exactly one crashes.
func TestCrashAfterSetNXOneShot(t *testing.T) {
	_, lockers, f := crashEnv(t)
	l, err := lockers.Locker("redis", lockstrategy.Options{TTL: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CrashAfterSetNX(); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		crashed int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "crash-one-shot-" + string(rune('a'+i)) // distinct keys: nobody waits
			le, err := locktest.LockWithin(l, key, 5*time.Second)
			switch {
			case errors.Is(err, lockstrategy.ErrHolderCrashed):
				mu.Lock()
				crashed++
				mu.Unlock()
			case err != nil:
				t.Errorf("Lock %s: %v", key, err)
			default:
				le.Unlock(context.Background())
			}
		}()
	}
	wg.Wait()
	if crashed != 1 {
		t.Fatalf("%d of %d acquisitions crashed, want exactly 1", crashed, n)
	}
}

func TestCrashAfterSetNXDisabled(t *testing.T) {
	f := faults.New(faults.Config{Points: &faultpoint.Points{}}, nil)
	if err := f.CrashAfterSetNX(); !errors.Is(err, faults.ErrDisabled) {
		t.Fatalf("disabled: %v, want ErrDisabled", err)
	}
	if f.CrashArmed() {
		t.Fatal("a disabled service armed the crash")
	}
}
