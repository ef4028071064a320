package order_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// TestPerUserLimitUnderConcurrency: several users each send 8 orders at
// once to a sale with plenty of stock; none may end with more orders than
// per_user_limit, whatever the strategy. The lock-free ones (db-conditional,
// redis-lua-stock) serialise buyers only at the stock write, so a limit
// checked by a plain read before that write let a user's concurrent orders
// all count 0 and all buy. A limit of 1 on db-conditional and db-optimistic
// is the order INSERT's unique key; above 1, a count after the write. The cases run in parallel: orders of several
// sales are inserted side by side, where gap locks could deadlock.
func TestPerUserLimitUnderConcurrency(t *testing.T) {
	store, lockers, svc := newService(t, "limit")
	const (
		users   = 6
		perUser = 8 // concurrent orders of one user
		rounds  = 4 // fresh users each round
		stock   = 100
	)
	for _, c := range []struct {
		strategy string
		limit    int
		shards   int // stock_shards: a split stock holds the limit too
	}{
		{"db-conditional", 1, 1}, {"redis-lua-stock", 1, 1}, {"db-optimistic", 1, 1}, {"db-pessimistic", 1, 1}, {"redis", 1, 1},
		{"db-conditional", 2, 1}, {"redis-lua-stock", 2, 1}, {"db-optimistic", 2, 1}, {"db-conditional", 1, 8}, {"db-conditional", 2, 8}, {"redis-lua-stock", 1, 8},
	} {
		t.Run(fmt.Sprintf("%s/limit=%d/shards=%d", c.strategy, c.limit, c.shards), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("limit " + c.strategy), Strategy: &c.strategy,
				Stock: new(int64(stock)), WorkMS: new(int64(workMS)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(c.limit)),
				StockShards: new(int64(c.shards))})
			l, err := lockers.Get(c.strategy, order.LockOptions(sale))
			if err != nil {
				t.Fatal(err)
			}

			bought, retryable, outcomes := limitHerd(t, svc, sale.ID, rounds, users, perUser)
			svc.Flush()
			got, err := store.GetSale(ctx, sale.ID)
			if err != nil {
				t.Fatal(err)
			}
			v, err := store.View(ctx, got)
			if err != nil {
				t.Fatal(err)
			}
			noUserOverOrUnderLimit(t, store, sale.ID, c.limit, rounds, users, retryable)
			sum := 0
			for _, n := range bought {
				sum += n
			}
			t.Logf("outcomes %v; sold %d, stock %d, duplicates %d, lost updates %d, oversold %d, violations %d",
				outcomes, v.Sold, v.Stock, v.Duplicates, v.LostUpdates, v.Oversold, v.Violations)
			if v.Duplicates != 0 || v.LostUpdates != 0 || v.Oversold != 0 || v.Violations != 0 || int64(sum) != v.Sold {
				t.Errorf("%d users over the limit, lost updates %d, oversold %d, violations %d, %d orders answered for %d sold",
					v.Duplicates, v.LostUpdates, v.Oversold, v.Violations, sum, v.Sold)
			}
			if rep, ok := lockstrategy.As[interface {
				StockLeft(ctx context.Context, key string) (int64, error)
			}](l); ok {
				n, err := rep.StockLeft(ctx, svc.LockKey(sale.ID))
				if err != nil || n != v.Stock {
					t.Errorf("store stock %d (%v), database stock %d: a refused order kept its unit", n, err, v.Stock)
				}
			}
		})
	}
}

// limitHerd sends rounds of concurrent orders on sale saleID, each round
// from users fresh users sending perUser orders each at once, and counts
// per user what Place bought and what it refused for a reason other than
// the limit (retryable), and the outcomes. An answer no buyer may get
// fails the test.
func limitHerd(t *testing.T, svc *order.Service, saleID uint64, rounds, users, perUser int) (bought, retryable, outcomes map[string]int) {
	ctx := context.Background()
	var mu sync.Mutex
	bought = map[string]int{}    // Place returned an order
	retryable = map[string]int{} // refused for a reason other than the limit
	outcomes = map[string]int{}
	for r := range rounds {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for u := range users {
			user := fmt.Sprintf("r%d-u%d", r, u)
			for range perUser {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, err := svc.Place(ctx, saleID, user)
					mu.Lock()
					defer mu.Unlock()
					outcomes[order.OutcomeOf(err)]++
					switch {
					case err == nil:
						bought[user]++
					case errors.Is(err, order.ErrLimitReached):
					case errors.Is(err, order.ErrConflict), errors.Is(err, order.ErrLockTimeout),
						errors.Is(err, order.ErrSoldOut): // sold out: only once duplicates ate the stock
						retryable[user]++
					default:
						t.Errorf("user %s: %v", user, err)
					}
				}()
			}
		}
		close(start)
		wg.Wait()
	}
	return bought, retryable, outcomes
}

// noUserOverOrUnderLimit checks the sale's rows: no user has more orders
// than limit, and a user with fewer was refused for another reason
// (retryable) at least once.
func noUserOverOrUnderLimit(t *testing.T, store *inventory.Store, saleID uint64, limit, rounds, users int, retryable map[string]int) {
	var rows []struct {
		UserID string
		N      int
	}
	if err := store.DB().WithContext(context.Background()).Raw(
		"SELECT user_id, COUNT(*) AS n FROM orders WHERE sale_id = ? GROUP BY user_id", saleID).
		Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	inDB := map[string]int{}
	var over []string
	for _, row := range rows {
		inDB[row.UserID] = row.N
		if row.N > limit {
			over = append(over, fmt.Sprintf("%s=%d", row.UserID, row.N))
		}
	}
	if len(over) > 0 {
		t.Errorf("%d users got more than %d orders: %v", len(over), limit, over)
	}
	for r := range rounds {
		for u := range users {
			user := fmt.Sprintf("r%d-u%d", r, u)
			if inDB[user] < limit && retryable[user] == 0 {
				t.Errorf("user %s got %d orders, refused below its limit %d", user, inDB[user], limit)
			}
		}
	}
}
