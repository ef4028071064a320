package order_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A combined batch with one buyer whose row the database refuses: that
// buyer alone gets the refusal; every other buyer of the batch gets an
// order, and the sale is exact. Before, the refusal failed the whole batch
// (and a key collision answered every buyer 409 in_progress).
func TestRefusedRowFailsOnlyItsBuyer(t *testing.T) {
	store, lockers, svc := newService(t, "badbuyer")
	sale := combinedSale(t, sale.New(store.DB(), lockers, svc), "db-pessimistic", 20, 50, 50000, false)
	mallory := fmt.Sprintf("mallory-%d", sale.ID)
	testenv.RefuseOrderRowsOf(t, store.DB(), mallory)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := map[string]error{}
	var mu sync.Mutex
	start := make(chan struct{})
	buyers := []string{mallory}
	for i := range 10 {
		buyers = append(buyers, fmt.Sprintf("honest-%d", i))
	}
	for _, u := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, _, err := svc.Buy(ctx, order.Purchase{SaleID: sale.ID, UserID: u, IdempotencyKey: "k-" + u})
			mu.Lock()
			errs[u] = err
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	for u, err := range errs {
		switch {
		case u == mallory && !dberr.IsRowRefused(err):
			t.Errorf("%s: %v, want the database's refusal of its row", u, err)
		case u != mallory && err != nil:
			t.Errorf("%s: %v, want an order", u, err)
		}
	}
	v := settledView(t, store, svc, sale.ID)
	if v.Sold != 10 || v.Stock != 10 || v.Oversold != 0 || v.LostUpdates != 0 || v.Duplicates != 0 {
		t.Fatalf("sold %d stock %d oversold %d lost %d duplicates %d: want 10 sold, 10 left, exact", v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Duplicates)
	}
}
