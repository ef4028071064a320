package order

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// fakeKinds stand for a strategy of each kind; roadFor only looks at which
// one an Instance carries.
type (
	fakeLocker   struct{ lockstrategy.Locker }
	fakeLockFree struct{ lockstrategy.LockFree }
	fakeReserver struct{ lockstrategy.Reserver }
)

// A sale's road follows from its order mode, its strategy's kind and its
// combining, and carries the strategy's properties the section needs.
func TestRoadFor(t *testing.T) {
	locker := lockstrategy.Instance{Locker: fakeLocker{}}
	lockFree := lockstrategy.Instance{LockFree: fakeLockFree{}}
	reserver := lockstrategy.Instance{Reserver: fakeReserver{}}
	st := lockstrategy.Strategy{Tokens: true, GoesOnWhenLost: true}
	for _, tc := range []struct {
		name string
		sale inventory.Sale
		inst lockstrategy.Instance
		want string
	}{
		{"a lock", inventory.Sale{}, locker, "order.lockedRoad"},
		{"a lock, combining", inventory.Sale{Combine: true, CombineMaxBatch: 8}, locker, "order.combinedRoad"},
		{"a lock, combining in batches of none", inventory.Sale{Combine: true}, locker, "order.lockedRoad"},
		{"lock-free", inventory.Sale{}, lockFree, "order.lockFreeRoad"},
		{"lock-free, combine asked", inventory.Sale{Combine: true, CombineMaxBatch: 8}, lockFree, "order.lockFreeRoad"},
		{"its own stock", inventory.Sale{}, reserver, "order.reservedRoad"},
		{"its own stock, async", inventory.Sale{OrderMode: inventory.OrderAsync}, reserver, "order.queuedRoad"},
		{"a lock, async", inventory.Sale{OrderMode: inventory.OrderAsync}, locker, "order.queuedRoad"},
	} {
		if got := fmt.Sprintf("%T", roadFor(nil, tc.sale, st, tc.inst)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	r := roadFor(nil, inventory.Sale{}, st, locker).(lockedRoad)
	if !r.tokens || !r.goesOn {
		t.Errorf("the locked road forgot the strategy's tokens or its policy on a lost lease: %+v", r)
	}
}

// An async sale on a strategy with no stock of its own, or on a replica
// with no queue, is refused on its road (ErrNoQueue), before anything is
// taken.
func TestQueuedRoadWithoutAQueue(t *testing.T) {
	s := &Service{}
	for _, inst := range []lockstrategy.Instance{{Locker: fakeLocker{}}, {Reserver: fakeReserver{}}} {
		r := roadFor(s, inventory.Sale{OrderMode: inventory.OrderAsync, Strategy: "x"}, lockstrategy.Strategy{}, inst)
		if _, f, err := r.sell(context.Background(), Purchase{UserID: "u"}); !errors.Is(err, ErrNoQueue) || f.layer != LayerQueue {
			t.Errorf("%s: layer %q, err %v; want ErrNoQueue on the queue layer", inst.Kind(), f.layer, err)
		}
	}
}
