package locktest

// Test-only strategies for the packages that create sales (the sale
// service, the HTTP API): a strategy whose backend is missing, stock
// reservers that work or fail, and one that cannot be built.

import (
	"context"
	"errors"
	"sync"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// RegisterFakes registers, under names starting with prefix:
//   - prefix+"needs-zk": needs ZooKeeper, so it is unavailable without it;
//   - prefix+"reserver": a stock reserver (redis-lua-stock's shape), the
//     returned *FakeReserver, recording what it is loaded with;
//   - prefix+"reserver-broken": a reserver whose LoadStock fails with a
//     backend's error (an address in 10.0.0.0/8);
//   - prefix+"broken-new": one that cannot be built (the same kind of
//     error).
//
// Call it once per test binary (from an init): names are registered for
// good.
func RegisterFakes(prefix string) *FakeReserver {
	reserver := NewFakeReserver(nil)
	broken := NewFakeReserver(errors.New("dial tcp 10.0.0.1:6379: connection refused"))
	lockstrategy.Register(lockstrategy.Strategy{Name: prefix + "needs-zk", Description: "test",
		Needs: []lockstrategy.Need{lockstrategy.NeedZooKeeper},
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return nil, errors.New("unreachable: not available")
		}})
	lockstrategy.Register(lockstrategy.Strategy{Name: prefix + "reserver", Description: "test",
		NewReserver: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Reserver, error) { return reserver, nil }})
	lockstrategy.Register(lockstrategy.Strategy{Name: prefix + "reserver-broken", Description: "test",
		NewReserver: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Reserver, error) { return broken, nil }})
	lockstrategy.Register(lockstrategy.Strategy{Name: prefix + "broken-new", Description: "test",
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return nil, errors.New("zk: could not connect to 10.0.0.2:2181")
		}})
	return reserver
}

// FakeReserver is a lockstrategy.Reserver that records LoadStock calls,
// or fails them. It stands in for a strategy type, not for a service: the
// database under test stays real.
type FakeReserver struct {
	fail  error
	mu    sync.Mutex
	loads map[string]int64
}

// NewFakeReserver returns a reserver whose LoadStock fails with fail, or
// records the stock when fail is nil.
func NewFakeReserver(fail error) *FakeReserver {
	return &FakeReserver{fail: fail, loads: map[string]int64{}}
}

// LoadStock records stock under key, or fails.
func (f *FakeReserver) LoadStock(_ context.Context, key string, stock int64) error {
	if f.fail != nil {
		return f.fail
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads[key] = stock
	return nil
}

// Loaded is the stock last loaded under key, if any.
func (f *FakeReserver) Loaded(key string) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.loads[key]
	return n, ok
}

// Reserve always grants a unit.
func (f *FakeReserver) Reserve(context.Context, string, string) (lockstrategy.Reservation, bool, error) {
	return lockstrategy.Reservation{}, true, nil
}

// Settled, Unreserve, Overdrawn and RestoreStock do nothing.
func (f *FakeReserver) Settled(context.Context, string, lockstrategy.Reservation) error   { return nil }
func (f *FakeReserver) Unreserve(context.Context, string, lockstrategy.Reservation) error { return nil }
func (f *FakeReserver) Overdrawn(context.Context, string, lockstrategy.Reservation) error { return nil }
func (f *FakeReserver) RestoreStock(context.Context, string, int64, []uint64) error       { return nil }

// Interface check.
var _ lockstrategy.Reserver = (*FakeReserver)(nil)
