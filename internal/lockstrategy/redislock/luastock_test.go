package redislock

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// 64 buyers race for 100 units: exactly 100 reservations, stock never below 0.
func TestLuaStockNeverBelowZero(t *testing.T) {
	rdb := testenv.Redis(t)
	key := testKey(t, rdb)
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
				ok, err := s.Reserve(ctx, key)
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
	if left := rdb.Get(ctx, stockKey(key)).Val(); left != "0" {
		t.Fatalf("stock left %q, want 0", left)
	}
	if ok, err := s.Reserve(ctx, key); ok || err != nil {
		t.Fatalf("Reserve when sold out: %v %v, want false nil", ok, err)
	}
	if err := s.Unreserve(ctx, key); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Reserve(ctx, key); !ok || err != nil {
		t.Fatalf("Reserve of the unit given back: %v %v, want true nil", ok, err)
	}
	le, err := s.Lock(ctx, key)
	if err != nil || le.Token() != 0 || le.Unlock(ctx) != nil {
		t.Fatalf("Lock should be a no-op lease: %v %v", le, err)
	}
}

// A sale whose stock was never loaded is an error, not "sold out".
func TestLuaStockNotLoaded(t *testing.T) {
	rdb := testenv.Redis(t)
	key := testKey(t, rdb)
	s := NewLuaStock(rdb)
	if _, err := s.Reserve(context.Background(), key); !errors.Is(err, ErrStockNotLoaded) {
		t.Fatalf("Reserve: %v, want ErrStockNotLoaded", err)
	}
	if err := s.Unreserve(context.Background(), key); !errors.Is(err, ErrStockNotLoaded) {
		t.Fatalf("Unreserve: %v, want ErrStockNotLoaded", err)
	}
	if n := rdb.Exists(context.Background(), stockKey(key)).Val(); n != 0 {
		t.Fatal("Unreserve created a stock key out of nothing")
	}
}
