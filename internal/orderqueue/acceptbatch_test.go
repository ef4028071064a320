package orderqueue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// A herd on one async sale over two replicas, whose accepts are gathered
// into batches (one script call for many buyers): distinct buyers, buyers
// sending three orders against a limit of one, and buyers sending three
// orders with one idempotency key, all at once; with more units than
// requests (every refusal is then the limit's, every replay the key's,
// counted exactly) and with fewer. Every request gets exactly one answer, a
// replay carries its key's ticket, every ticket accepted becomes an order
// once the consumers drain, the database's truth is exact, the batches did
// gather, and Redis's stock agrees with the database's.
func TestBatchedAcceptsKeepEveryCheck(t *testing.T) {
	a, b := newLab(t, nil), newLab(t, nil)
	a.consumer("batch-a", time.Second)
	b.consumer("batch-b", time.Second)
	for _, stock := range []int64{250, 100} {
		t.Run(fmt.Sprintf("stock=%d", stock), func(t *testing.T) { batchedAcceptHerd(t, a, b, stock) })
	}
}

func batchedAcceptHerd(t *testing.T, a, b *lab, stock int64) {
	strategy, mode, limit := "redis-lua-stock", inventory.OrderAsync, int64(1)
	s := saletest.Make(t, a.sales, sale.Spec{Strategy: &strategy, Stock: &stock, OrderMode: &mode, PerUserLimit: &limit})
	purchases := herdPurchases(s.ID)
	answers := sendHerd(t, []*lab{a, b}, purchases)
	accepted, outcomes := tallyHerd(t, purchases, answers)
	a.drained(s.ID)
	v := a.checkTruth(s)
	t.Logf("answers %v; sold %d, stock %d", outcomes, v.Sold, v.Stock)
	tickets := make([]string, 0, len(accepted))
	for tk := range accepted {
		tickets = append(tickets, tk)
	}
	if st := a.states(tickets); st[orderqueue.StateConfirmed] != len(tickets) || v.Sold != int64(len(tickets)) {
		t.Fatalf("%d tickets accepted: states %v, sold %d; want every one confirmed", len(tickets), st, v.Sold)
	}
	oneOrderPerKey(t, a, s.ID)
	biggest := biggestAccept(t, a, s.ID)
	t.Logf("the biggest batch accepted %d orders", biggest)
	if biggest < 2 {
		t.Fatal("no script call accepted two orders: the herd's accepts ran one by one")
	}
	if stock >= int64(len(purchases)) && (outcomes["accepted"] != 140 || outcomes["limit"] != 40 || outcomes["replayed"] != 40) {
		t.Fatalf("answers %v with a unit for every request: want 140 accepted (one per buyer), 40 over the limit, 40 replays", outcomes)
	}
}

// herdPurchases are a batched accept herd's requests on sale saleID: 100
// distinct buyers, then 20 greedy ones sending three orders each and 20
// retrying ones sending three with one idempotency key, interleaved.
func herdPurchases(saleID uint64) []order.Purchase {
	var purchases []order.Purchase
	for i := range 100 {
		purchases = append(purchases, order.Purchase{SaleID: saleID, UserID: fmt.Sprintf("one-%d", i)})
	}
	for i := range 20 {
		for range 3 {
			purchases = append(purchases, order.Purchase{SaleID: saleID, UserID: fmt.Sprintf("greedy-%d", i)})
			purchases = append(purchases, order.Purchase{SaleID: saleID, UserID: fmt.Sprintf("retry-%d", i), IdempotencyKey: "k"})
		}
	}
	return purchases
}

// herdAnswer is what Buy answered one request of a herd, and its layer.
type herdAnswer struct {
	o     inventory.Order
	layer string
	err   error
}

// sendHerd sends every purchase at once, alternating the labs, and fails
// the test unless each request got exactly one answer.
func sendHerd(t *testing.T, labs []*lab, purchases []order.Purchase) []herdAnswer {
	ctx := context.Background()
	answers := make([]herdAnswer, len(purchases))
	calls := make([]int, len(purchases))
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, p := range purchases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o, layer, err := labs[i%len(labs)].orders.Buy(ctx, p)
			mu.Lock()
			answers[i] = herdAnswer{o, layer, err}
			calls[i]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	for i, n := range calls {
		if n != 1 {
			t.Fatalf("request %d answered %d times", i, n)
		}
	}
	return answers
}

// tallyHerd maps each ticket newly accepted to its buyer and counts the
// answers (accepted, replayed, sold_out, limit); it fails the test on a
// ticket accepted twice, a key that answered two tickets, or an answer no
// herd may get.
func tallyHerd(t *testing.T, purchases []order.Purchase, answers []herdAnswer) (accepted map[string]string, outcomes map[string]int) {
	accepted = map[string]string{}   // ticket -> buyer, new accepts only
	keyTicket := map[string]string{} // retrying buyer -> the tickets its answers carried
	outcomes = map[string]int{}
	for i, an := range answers {
		p := purchases[i]
		switch {
		case an.err == nil && an.o.Status == inventory.StatusPending && an.o.OrderTicket != nil:
			tk := *an.o.OrderTicket
			if an.layer == order.LayerIdempotency {
				outcomes["replayed"]++
			} else {
				outcomes["accepted"]++
				if _, twice := accepted[tk]; twice {
					t.Fatalf("ticket %s accepted twice", tk)
				}
				accepted[tk] = p.UserID
			}
			if p.IdempotencyKey != "" {
				if prev, ok := keyTicket[p.UserID]; ok && prev != tk {
					t.Fatalf("%s's key answered tickets %s and %s", p.UserID, prev, tk)
				}
				keyTicket[p.UserID] = tk
			}
		case errors.Is(an.err, order.ErrSoldOut):
			outcomes["sold_out"]++
		case errors.Is(an.err, order.ErrLimitReached):
			outcomes["limit"]++
		default:
			t.Fatalf("request %d (%s): %+v %v", i, p.UserID, an.o, an.err)
		}
	}
	return accepted, outcomes
}

// oneOrderPerKey checks that no idempotency key made two of the sale's
// orders.
func oneOrderPerKey(t *testing.T, a *lab, saleID uint64) {
	var perKey []int64
	if err := a.b.DB.Raw(`SELECT COUNT(*) FROM orders WHERE sale_id = ? AND idempotency_key IS NOT NULL
		GROUP BY user_id, idempotency_key`, saleID).Scan(&perKey).Error; err != nil {
		t.Fatal(err)
	}
	for _, n := range perKey {
		if n != 1 {
			t.Fatalf("an idempotency key made %d orders", n)
		}
	}
}

// biggestAccept is the most orders of the sale one script call accepted:
// one call stamps its accepts with one clock reading.
func biggestAccept(t *testing.T, a *lab, saleID uint64) int64 {
	var biggest int64
	if err := a.b.DB.Raw(`SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM orders WHERE sale_id = ?
		GROUP BY accepted_at) b`, saleID).Scan(&biggest).Error; err != nil {
		t.Fatal(err)
	}
	return biggest
}
