package order_test

import (
	"context"
	"errors"
	"testing"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/memlock"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// zeroToken is a working in-process lock that promises fencing tokens and
// gives 0: the defect redisson once had (a lock read as free in its last
// millisecond came with token 0).
type zeroToken struct{ *memlock.Locker }

func (z zeroToken) Lock(ctx context.Context, key string) (lockstrategy.Lease, error) {
	le, err := z.Locker.Lock(ctx, key)
	return zeroLease{le}, err
}

type zeroLease struct{ lockstrategy.Lease }

func (zeroLease) Token() uint64 { return 0 }

func init() {
	lockstrategy.Register(lockstrategy.Strategy{Name: "test-zero-token", Description: "test only", Safe: false,
		Tokens: true, Expiry: lockstrategy.ExpiryProcess, Normalize: lockstrategy.NoOptions,
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return zeroToken{memlock.New()}, nil
		}})
}

// A fenced sale whose lock promises tokens and gives 0 writes nothing:
// unfenced, a stale holder's write would land (the lost update of the
// chaos run). An unfenced sale on the same lock buys as usual.
func TestFencedSaleRefusesTokenZero(t *testing.T) {
	store, lockers, svc := newService(t, "notoken")
	ctx := context.Background()
	for _, fencing := range []bool{true, false} {
		sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("zero"), Strategy: new("test-zero-token"),
			Stock: new(int64(5)), Fencing: &fencing, PerUserLimit: new(int64(0))})
		_, err := svc.Place(ctx, sale.ID, "A")
		if fencing && !errors.Is(err, order.ErrNoFenceToken) {
			t.Fatalf("fenced: %v, want ErrNoFenceToken", err)
		}
		if !fencing && err != nil {
			t.Fatalf("unfenced: %v", err)
		}
	}
}
