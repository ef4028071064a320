package lockstrategy_test

import (
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Options a strategy does not use do not build a second instance (a second
// ZooKeeper session, a second mutex table); NoRenewal does where there is a
// watchdog to turn off.
func TestInstancesShareWhatOptionsDoNotChange(t *testing.T) {
	in := lockstrategy.NewInstances(testenv.Backends(t, "lockstrategy"))
	t.Cleanup(func() { in.Close() })
	get := func(name string, o lockstrategy.Options) lockstrategy.Instance {
		t.Helper()
		l, err := in.Get(name, o)
		if err != nil {
			t.Fatalf("%s %+v: %v", name, o, err)
		}
		return l
	}
	ttl := lockstrategy.Options{TTL: time.Second}
	off := lockstrategy.Options{TTL: time.Second, NoRenewal: true}
	for _, c := range []struct {
		name string
		a, b lockstrategy.Options
		same bool
	}{
		{"mutex", lockstrategy.Options{}, off, true},                 // no TTL at all
		{"db-lock-table", ttl, off, true},                            // a TTL, no watchdog
		{"redis", ttl, off, false},                                   // the watchdog is the difference
		{"redis", ttl, lockstrategy.Options{TTL: time.Second}, true}, // same options, same instance
	} {
		if got := get(c.name, c.a) == get(c.name, c.b); got != c.same {
			t.Errorf("%s: %+v and %+v share an instance: %v, want %v", c.name, c.a, c.b, got, c.same)
		}
	}
}

// Each strategy's Normalize agrees with what it declares: it keeps the TTL
// only if a TTL frees a dead holder, and NoRenewal only if it has a
// watchdog to turn off.
func TestNormalizeKeepsWhatTheStrategyUses(t *testing.T) {
	all := lockstrategy.Options{TTL: time.Second, NoRenewal: true}
	for _, s := range lockstrategy.All() {
		got := s.Normalized(all)
		if keeps := got.TTL == all.TTL; keeps != (s.Expiry == lockstrategy.ExpiryTTL) {
			t.Errorf("%s (expiry %s) keeps the TTL: %v", s.Name, s.Expiry, keeps)
		}
		if keeps := got.NoRenewal; keeps != s.Renews {
			t.Errorf("%s (renews %v) keeps NoRenewal: %v", s.Name, s.Renews, keeps)
		}
		if again := s.Normalized(got); again != got {
			t.Errorf("%s: Normalize is not idempotent: %+v then %+v", s.Name, got, again)
		}
	}
}

// A strategy that takes no lock is not handed out as a Locker.
func TestInstancesLockerRefusesLockFree(t *testing.T) {
	in := lockstrategy.NewInstances(testenv.Backends(t, "lockstrategy"))
	t.Cleanup(func() { in.Close() })
	for _, name := range []string{"db-optimistic", "db-conditional", "redis-lua-stock"} {
		if _, err := in.Locker(name, lockstrategy.Options{}); !errors.Is(err, lockstrategy.ErrNotALock) {
			t.Errorf("Locker(%s): %v, want ErrNotALock", name, err)
		}
	}
	if _, err := in.Locker("mutex", lockstrategy.Options{}); err != nil {
		t.Errorf("Locker(mutex): %v", err)
	}
}

// Every strategy builds the kind it declares: exactly one of the three is
// set, the one Strategy.Kind names (the order service takes its path from
// it).
func TestEveryStrategyBuildsItsKind(t *testing.T) {
	in := lockstrategy.NewInstances(testenv.Backends(t, "lockstrategy"))
	t.Cleanup(func() { in.Close() })
	kinds := map[lockstrategy.Kind]int{}
	for _, s := range lockstrategy.All() {
		if s.Available(in.Backends()) != nil {
			continue
		}
		inst, err := in.Get(s.Name, lockstrategy.Options{TTL: time.Second})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		set := 0
		for _, isSet := range []bool{inst.Locker != nil, inst.LockFree != nil, inst.Reserver != nil} {
			if isSet {
				set++
			}
		}
		if set != 1 || inst.Kind() != s.Kind() {
			t.Errorf("%s declares %s, built %+v (kind %s)", s.Name, s.Kind(), inst, inst.Kind())
		}
		kinds[s.Kind()]++
	}
	if kinds[lockstrategy.KindLock] == 0 || kinds[lockstrategy.KindLockFree] == 0 || kinds[lockstrategy.KindReserve] == 0 {
		t.Errorf("strategies by kind %v: every kind should have one", kinds)
	}
}

// A registration that builds no kind, or two, is refused at once.
func TestRegisterNeedsExactlyOneKind(t *testing.T) {
	lock := func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) { return nil, nil }
	free := func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.LockFree, error) { return nil, nil }
	for _, s := range []lockstrategy.Strategy{
		{Name: "test-no-kind"},
		{Name: "test-two-kinds", NewLocker: lock, NewLockFree: free},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", s.Name)
				}
			}()
			lockstrategy.Register(s)
		}()
	}
}
