package order_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// shardSeed is the split-stock tests' seed: SECKILL_SHARD_SEED replays one;
// it is printed, and names the buyers (so it decides their home shards).
func shardSeed(t *testing.T) uint64 {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("SECKILL_SHARD_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SECKILL_SHARD_SEED=%q: %v", v, err)
		}
		s = n
	}
	t.Logf("seed %d (replay: SECKILL_SHARD_SEED=%d go test -run '%s' ./internal/order/)", s, s, t.Name())
	return s
}

// buyersHomedOn returns n buyer ids, named after prefix, whose home shard
// of shards is home.
func buyersHomedOn(prefix string, home, shards, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if id := fmt.Sprintf("%s-%d", prefix, i); buyer.HomeShard(id, shards) == home {
			out = append(out, id)
		}
	}
	return out
}

// splitSale is a sale of stock units in shards shards on strategy.
func splitSale(t *testing.T, store *inventory.Store, lockers *lockstrategy.Instances, svc *order.Service,
	strategy string, stock, shards int64, limit int64) inventory.Sale {
	t.Helper()
	return saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("split " + strategy), Strategy: &strategy,
		Stock: new(stock), StockShards: new(shards), PerUserLimit: new(limit)})
}

// TestSplitStockSellsEveryUnitOnce: more buyers than units fire at once at
// a stock split into 8 shards, a third of them homed on one shard (which
// empties first, the others unevenly after it, in an order the seed
// decides). Every unit is sold once: as many orders as units, every other
// answer sold out, the stock 0 on every shard and in the sum, nothing
// oversold or lost, and the shards' sales adding up to the orders.
func TestSplitStockSellsEveryUnitOnce(t *testing.T) {
	store, lockers, svc := newService(t, "split")
	seed := shardSeed(t)
	for _, strategy := range lockstrategy.Splitting() {
		t.Run(strategy, func(t *testing.T) {
			const stock, shards, buyers = 37, 8, 120
			ctx := context.Background()
			s := splitSale(t, store, lockers, svc, strategy, stock, shards, 1)
			rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
			prefix := fmt.Sprintf("%s-%d", strategy, seed)
			ids := buyersHomedOn(prefix+"-home", rng.IntN(shards), shards, buyers/3)
			for i := len(ids); i < buyers; i++ {
				ids = append(ids, fmt.Sprintf("%s-any-%d", prefix, i))
			}
			rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })

			var (
				wg          sync.WaitGroup
				mu          sync.Mutex
				sold, outOf int
				unexpected  []error
				inFlight    = make(chan struct{}, 48)
			)
			for _, id := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					inFlight <- struct{}{}
					defer func() { <-inFlight }()
					_, err := svc.Place(ctx, s.ID, id)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						sold++
					case errors.Is(err, order.ErrSoldOut):
						outOf++
					default:
						unexpected = append(unexpected, fmt.Errorf("%s: %w", id, err))
					}
				}()
			}
			wg.Wait()
			if len(unexpected) > 0 {
				t.Fatalf("answers no buyer may get: %v", unexpected)
			}
			v := settledView(t, store, svc, s.ID)
			if sold != stock || outOf != buyers-stock || v.Sold != stock || v.Stock != 0 || v.Oversold != 0 ||
				v.LostUpdates != 0 || v.Duplicates != 0 {
				t.Errorf("%d orders and %d sold out for %d units and %d buyers; the database: sold %d, stock %d, oversold %d, lost %d, duplicates %d",
					sold, outOf, stock, buyers, v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Duplicates)
			}
			if left, err := inventory.SaleStock(ctx, store.DB(), s.ID); err != nil || left != 0 {
				t.Errorf("SaleStock %d (%v), want 0", left, err)
			}
			checkShards(t, v, shards, stock)
			storeStockIs(t, lockers, svc, s, 0)
		})
	}
}

// storeStockIs: a strategy that keeps the stock in a store of its own
// (redis-lua-stock's keys) holds want there, summed over its shards.
func storeStockIs(t *testing.T, lockers *lockstrategy.Instances, svc *order.Service, s inventory.Sale, want int64) {
	t.Helper()
	l, err := lockers.Get(s.Strategy, order.LockOptions(s))
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := lockstrategy.As[interface {
		StockLeft(ctx context.Context, key string) (int64, error)
	}](l)
	if !ok {
		return
	}
	if n, err := rep.StockLeft(context.Background(), svc.LockKey(s.ID)); err != nil || n != want {
		t.Errorf("the store's stock is %d (%v), want %d", n, err, want)
	}
}

// checkShards: a sale split in the database has its shards' rows, each
// empty, each having sold its share, the sales adding up to the sale's.
func checkShards(t *testing.T, v inventory.SaleView, shards int, stock int64) {
	t.Helper()
	if len(v.Shards) == 0 {
		return // split outside the database (redis-lua-stock's keys)
	}
	if len(v.Shards) != shards {
		t.Fatalf("%d shard rows, want %d", len(v.Shards), shards)
	}
	var sum, moved int64
	for i, s := range v.Shards {
		if s.Shard != i || s.Stock != 0 || s.Sold != inventory.ShareOf(stock, shards, i) {
			t.Errorf("shard %+v: want shard %d with stock 0 and %d sold", s, i, inventory.ShareOf(stock, shards, i))
		}
		sum, moved = sum+s.Sold, moved+s.MovedIn
	}
	if sum != v.Sold {
		t.Errorf("the shards sold %d, the sale %d", sum, v.Sold)
	}
	t.Logf("shards %+v; %d buyers moved on from an empty home shard", v.Shards, moved)
}

// TestSplitStockMovesOnFromAnEmptyShard: buyers all homed on one shard of
// 4 buy one after the other. Each buys, their home shard empty or not,
// until the whole stock is sold; the stock read after each order is one
// less; the first sold-out answer comes at stock 0, not before.
func TestSplitStockMovesOnFromAnEmptyShard(t *testing.T) {
	store, lockers, svc := newService(t, "split-walk")
	for _, strategy := range lockstrategy.Splitting() {
		t.Run(strategy, func(t *testing.T) {
			const stock, shards = 10, 4
			ctx := context.Background()
			s := splitSale(t, store, lockers, svc, strategy, stock, shards, 1)
			ids := buyersHomedOn(fmt.Sprintf("walk-%s-%d", strategy, s.ID), 2, shards, stock+1)
			for i, id := range ids {
				_, err := svc.Place(ctx, s.ID, id)
				left, rerr := inventory.SaleStock(ctx, store.DB(), s.ID)
				if rerr != nil {
					t.Fatal(rerr)
				}
				switch {
				case i < stock && err != nil:
					t.Fatalf("buyer %d of %d (%s) refused with stock %d left: %v", i+1, stock, id, left, err)
				case i < stock && left != int64(stock-i-1):
					t.Fatalf("after %d orders the stock is %d, want %d", i+1, left, stock-i-1)
				case i < stock:
					storeStockIs(t, lockers, svc, s, int64(stock-i-1))
				case i == stock && !errors.Is(err, order.ErrSoldOut):
					t.Fatalf("the buyer after the last unit got %v, want sold out", err)
				}
			}
			v := settledView(t, store, svc, s.ID)
			checkShards(t, v, shards, stock)
			if len(v.Shards) == shards {
				var moved int64
				for _, sh := range v.Shards {
					moved += sh.MovedIn
				}
				if home := inventory.ShareOf(stock, shards, 2); moved != stock-home {
					t.Errorf("%d buyers moved on, want %d (all but the %d units of their home shard)", moved, stock-home, home)
				}
			}
		})
	}
}

// TestSplitStockOptionIsChecked: stock_shards is bounded, needs a strategy
// that splits the stock, and a refused one creates nothing.
func TestSplitStockOptionIsChecked(t *testing.T) {
	store, lockers, svc := newService(t, "split-check")
	sales := sale.New(store.DB(), lockers, svc)
	for _, c := range []struct {
		strategy string
		shards   int64
		stock    int64
	}{{"db-conditional", 0, 10}, {"db-conditional", 65, 100}, {"db-conditional", 8, 5}, {"redis", 2, 10}, {"db-optimistic", 2, 10},
		{"redis-lua-stock", 65, 100}} {
		before, err := store.ListSales(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		_, err = sales.Create(context.Background(), sale.Spec{Strategy: &c.strategy, Stock: new(c.stock), StockShards: new(c.shards)})
		var fe *sale.FieldError
		if !errors.As(err, &fe) || fe.Field != "stock_shards" {
			t.Errorf("%s with %d shards of %d units: %v, want a field error naming stock_shards", c.strategy, c.shards, c.stock, err)
		}
		after, err := store.ListSales(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) > 0 && (len(before) == 0 || after[0].ID != before[0].ID) {
			t.Errorf("%s with %d shards: a refused sale was created (%d)", c.strategy, c.shards, after[0].ID)
		}
	}
}

// TestSplitStockRestockLandsInAShard: a split sale sold out, then
// restocked by 3: the units land in shard 0 and are sold, whatever the
// buyers' home shards; the fourth buyer is sold out; the sale stays exact
// (initial stock grown by 3, stock 0).
func TestSplitStockRestockLandsInAShard(t *testing.T) {
	store, lockers, svc := newService(t, "split-restock")
	for _, strategy := range lockstrategy.Splitting() {
		t.Run(strategy, func(t *testing.T) {
			const stock, shards, more = 8, 4, 3
			ctx := context.Background()
			s := splitSale(t, store, lockers, svc, strategy, stock, shards, 1)
			for i := range stock {
				if _, err := svc.Place(ctx, s.ID, fmt.Sprintf("first-%d-%d", s.ID, i)); err != nil {
					t.Fatalf("buyer %d of %d: %v", i+1, stock, err)
				}
			}
			if err := svc.Restock(ctx, s.ID, more); err != nil {
				t.Fatal(err)
			}
			for i := range more + 1 {
				_, err := svc.Place(ctx, s.ID, fmt.Sprintf("after-%d-%d", s.ID, i))
				if i < more && err != nil {
					t.Fatalf("restocked unit %d of %d: %v", i+1, more, err)
				}
				if i == more && !errors.Is(err, order.ErrSoldOut) {
					t.Fatalf("the buyer after the restocked units got %v, want sold out", err)
				}
			}
			v := settledView(t, store, svc, s.ID)
			if v.InitialStock != stock+more || v.Sold != stock+more || v.Stock != 0 || v.Oversold != 0 || v.LostUpdates != 0 {
				t.Errorf("initial %d sold %d stock %d oversold %d lost %d; want %d sold of %d, stock 0",
					v.InitialStock, v.Sold, v.Stock, v.Oversold, v.LostUpdates, stock+more, stock+more)
			}
			storeStockIs(t, lockers, svc, s, 0)
		})
	}
}
