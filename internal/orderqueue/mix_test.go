package orderqueue_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Buyers keep coming while reservations expire and units come back, on two
// replicas each running its consumer and its expiry: half the buyers pay,
// the others let their reservation lapse. At the end Redis's stock equals
// the database's, nothing drifted, nothing was oversold.
func TestBuyPayExpireTogether(t *testing.T) {
	a, b := newLab(t, nil), newLab(t, nil)
	s := a.newSale("redis-lua-stock", 10, inventory.OrderAsync, 600)
	a.consumer("mix-a", time.Second)
	b.consumer("mix-b", time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, l := range []*lab{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); l.orders.RunExpiry(ctx, 100*time.Millisecond, nil) }()
	}
	deadline := time.Now().Add(4 * time.Second)
	var buyers sync.WaitGroup
	for w := range 8 {
		buyers.Add(1)
		go func() {
			defer buyers.Done()
			l := []*lab{a, b}[w%2]
			for i := 0; time.Now().Before(deadline); i++ {
				user := "w" + strconv.Itoa(w) + "-" + strconv.Itoa(i)
				o, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: user})
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if i%2 == 0 { // pay once the order exists
					for try := 0; try < 50; try++ {
						if _, err := l.orders.Pay(ctx, *o.OrderTicket, user); !errors.Is(err, order.ErrOrderPending) {
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
			}
		}()
	}
	buyers.Wait()
	a.drained(s.ID)
	testenv.WaitFor(t, 60*time.Second, "every unpaid reservation to expire and come back", func() bool {
		r, err := a.store.Reservations(context.Background(), s.ID)
		return err == nil && r.Reserved == 0 && r.Expired == r.Returned
	})
	cancel()
	wg.Wait()
	v := a.checkTruth(s)
	t.Logf("sold %d, stock %d", v.Sold, v.Stock)
}
