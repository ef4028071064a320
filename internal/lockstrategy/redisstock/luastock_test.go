package redisstock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// 64 buyers race for 100 units: exactly 100 reservations, stock never below 0.
func TestLuaStockNeverBelowZero(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	s := NewLuaStock(rdb)
	ctx := context.Background()
	const stock = 100
	if err := s.LoadStock(ctx, key, stock); err != nil {
		t.Fatal(err)
	}
	var (
		reserved atomic.Int64
		wg       sync.WaitGroup
	)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, ok, err := s.Reserve(ctx, key, "buyer")
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				reserved.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := reserved.Load(); got != stock {
		t.Fatalf("%d reservations of %d units", got, stock)
	}
	if left, _ := s.StockLeft(ctx, key); left != 0 {
		t.Fatalf("stock left %d, want 0", left)
	}
	r, ok, err := s.Reserve(ctx, key, "buyer")
	if ok || err != nil || r.Ticket != "" {
		t.Fatalf("Reserve when sold out: %v %v %+v, want false nil and no ticket", ok, err, r)
	}
	// A unit goes back once, however often its giving back is retried.
	if err := s.LoadStock(ctx, key, 1); err != nil {
		t.Fatal(err)
	}
	if r, ok, err = s.Reserve(ctx, key, "buyer"); !ok || err != nil || r.Ticket == "" || r.AcceptedAt.IsZero() {
		t.Fatalf("Reserve: %v %v %+v, want a ticket and the store's time", ok, err, r)
	}
	for range 2 {
		if err := s.Unreserve(ctx, key, r); err != nil {
			t.Fatal(err)
		}
	}
	if left, _ := s.StockLeft(ctx, key); left != 1 {
		t.Fatalf("stock %d after giving one unit back twice, want 1", left)
	}
	// It takes no lock: the order service must never find a Locker in it.
	if _, isLock := any(s).(lockstrategy.Locker); isLock {
		t.Fatalf("%T is a Locker; redis-lua-stock takes no lock", s)
	}
}

// A stock that is not in Redis (never loaded, or lost with a restart) is
// not "sold out": the first caller is told to rebuild it, the others that it
// is being rebuilt, and nothing is given back into it meanwhile.
func TestLuaStockLostIsRebuilt(t *testing.T) {
	rdb := testenv.Redis(t)
	key := locktest.RedisKey(t, rdb)
	s := NewLuaStock(rdb)
	ctx := context.Background()
	if err := s.LoadStock(ctx, key, 5); err != nil {
		t.Fatal(err)
	}
	old, ok, err := s.Reserve(ctx, key, "buyer")
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	rdb.Del(ctx, stockKeys(key)[0], stockKeys(key)[1]) // what a restart without persistence does
	if _, _, err := s.Reserve(ctx, key, "buyer"); !errors.Is(err, lockstrategy.ErrStockReloadClaimed) {
		t.Fatalf("first Reserve of a lost stock: %v, want ErrStockReloadClaimed", err)
	}
	if _, _, err := s.Reserve(ctx, key, "buyer"); !errors.Is(err, lockstrategy.ErrStockReloading) || errors.Is(err, lockstrategy.ErrStockReloadClaimed) {
		t.Fatalf("second Reserve: %v, want ErrStockReloading only", err)
	}
	if err := s.Unreserve(ctx, key, old); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.StockLeft(ctx, key); left != -1 {
		t.Fatalf("Unreserve made a stock of %d out of nothing", left)
	}
	if err := s.RestoreStock(ctx, key, 4, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Unreserve(ctx, key, old); err != nil { // a unit of the lost load: the database counts it
		t.Fatal(err)
	}
	if left, _ := s.StockLeft(ctx, key); left != 4 {
		t.Fatalf("stock %d after the rebuild and a stale Unreserve, want 4", left)
	}
	if err := s.RestoreStock(ctx, key, 9, nil); err != nil { // a second rebuild finds it back: no change
		t.Fatal(err)
	}
	r, ok, err := s.Reserve(ctx, key, "buyer")
	if !ok || err != nil || r.Ticket == old.Ticket {
		t.Fatalf("Reserve after the rebuild: %v %v, ticket %q (old %q)", ok, err, r.Ticket, old.Ticket)
	}
	if err := s.Overdrawn(ctx, key, old); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.StockLeft(ctx, key); left != 3 {
		t.Fatalf("a stale Overdrawn changed the stock to %d, want 3", left)
	}
	if err := s.Overdrawn(ctx, key, r); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.StockLeft(ctx, key); left != 0 {
		t.Fatalf("Overdrawn left %d, want 0", left)
	}
}

func TestRegistered(t *testing.T) {
	locktest.CheckRegistered(t, map[string]lockstrategy.Strategy{
		"redis-lua-stock": {Safe: true, Expiry: lockstrategy.ExpiryNone},
	})
}
