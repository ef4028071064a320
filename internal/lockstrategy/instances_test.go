package lockstrategy_test

import (
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
	get := func(name string, o lockstrategy.Options) lockstrategy.Locker {
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
