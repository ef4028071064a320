package order_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// redis-lua-stock keeps the stock in Redis; after a
// Redis restart without persistence every order failed ("stock not loaded
// in redis", HTTP 500) to the end of the sale and the units were never
// sold. The stock must come back from the database (the truth), with at
// most a short retryable refusal meanwhile, nothing oversold, and both
// stocks equal at the end.
func TestLuaStockSurvivesRedisRestart(t *testing.T) {
	db := testenv.DB(t, "order")
	addr := testenv.PrivateRedis(t, 1)[0]
	rdb := redis.NewClient(lockstrategy.RedisOptions(addr, 64))
	t.Cleanup(func() { rdb.Close() })
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{DB: db, Redis: rdb})
	t.Cleanup(func() { lockers.Close() })
	svc := order.NewService(order.Config{ReplicaID: "reload"}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(svc.Close)

	ctx := context.Background()
	const stock = 20
	sale := saletest.Make(t, sale.New(db, lockers, svc), sale.Spec{Name: new("reload"), Strategy: new("redis-lua-stock"),
		Stock: new(int64(stock)), PerUserLimit: new(int64(0))})
	// buy places an order for user, retrying what the shop calls retryable
	// (the reload's short refusal), and returns the final error.
	refused := 0
	buy := func(user string) error {
		deadline := time.Now().Add(60 * time.Second)
		for {
			_, err := svc.Place(ctx, sale.ID, user)
			if !errors.Is(err, lockstrategy.ErrStockReloading) || time.Now().After(deadline) {
				return err
			}
			refused++
			time.Sleep(50 * time.Millisecond)
		}
	}
	for i := range 5 {
		if err := buy(fmt.Sprintf("before-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	_ = rdb.Do(ctx, "DEBUG", "CRASH-AND-RECOVER", "0").Err() // every key gone, the stock too
	testenv.WaitFor(t, 30*time.Second, "the private Redis back, empty", func() bool {
		n, err := rdb.DBSize(ctx).Result()
		return err == nil && n == 0
	})
	sold := 5
	for i := 0; ; i++ {
		err := buy(fmt.Sprintf("after-%d", i))
		if errors.Is(err, order.ErrSoldOut) {
			break
		}
		if err != nil {
			t.Fatalf("order %d after the restart: %v", i, err)
		}
		if sold++; sold > stock {
			t.Fatalf("%d orders for %d units: oversold", sold, stock)
		}
	}
	svc.Flush()
	got, _ := store.GetSale(ctx, sale.ID)
	v, err := store.View(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	redisStock, err := rdb.Get(ctx, svc.LockKey(sale.ID)+":stock").Int64()
	t.Logf("sold %d, stock %d (redis %d, %v), oversold %d, %d refusals while reloading", v.Sold, v.Stock, redisStock, err, v.Oversold, refused)
	if v.Sold != stock || v.Stock != 0 || v.Oversold != 0 || err != nil || redisStock != 0 {
		t.Fatalf("after the reload: sold %d of %d, database stock %d, Redis stock %d (%v), oversold %d; want all sold and both stocks 0",
			v.Sold, stock, v.Stock, redisStock, err, v.Oversold)
	}
}
