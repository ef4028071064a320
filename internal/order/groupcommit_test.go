package order_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/reconcile"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// A herd on one redis-lua-stock sale over two replicas, whose reserved
// units are persisted in batches (group commit): distinct buyers, buyers
// sending three orders against a limit of one, and buyers sending three
// orders with one idempotency key, all at once; with more units than
// buyers (every refusal is then the limit's or the key's, counted exactly)
// and with fewer. Every request gets exactly one answer; each 201 is a row of its buyer and
// each row a 201; the database's truth is exact (sold = initial - stock,
// nobody over the limit, one order per key); the batches did gather; and
// Redis's stock agrees with the database's (the reconciliation).
func TestGroupCommitHerdKeepsEveryCheck(t *testing.T) {
	store, lockers, svc := newService(t, "gc-1")
	svc2 := order.NewService(order.Config{ReplicaID: "gc-2"}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(svc2.Close)
	replicas := []*order.Service{svc, svc2}
	for _, stock := range []int64{250, 100} {
		t.Run(fmt.Sprintf("stock=%d", stock), func(t *testing.T) {
			// A machine too slow for the persist bound times the herd's
			// batches out (the units go back, every check still holds):
			// that herd cannot show a batch, and a new one is sent.
			for try := 1; !groupCommitHerd(t, store, lockers, replicas, stock); try++ {
				if try == herdTries {
					t.Fatalf("%d herds in a row had their batches timed out: no batch ever committed two orders", try)
				}
				t.Logf("herd %d: its batches timed out before they could commit two orders; a new herd", try)
			}
		})
	}
}

// herdTries bounds the herds sent until one commits a batch of two orders.
const herdTries = 4

// groupCommitHerd is one herd of TestGroupCommitHerdKeepsEveryCheck: 100
// distinct buyers, 20 greedy ones and 20 retrying ones, on a sale of stock.
// It fails the test on any broken check, and returns false when persist
// timeouts left no batch of two orders to show (the herd proved the checks,
// not the batching).
func groupCommitHerd(t *testing.T, store *inventory.Store, lockers *lockstrategy.Instances, replicas []*order.Service, stock int64) bool {
	svc := replicas[0]
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("group commit herd"),
		Strategy: new("redis-lua-stock"), Stock: &stock, WorkMS: new(int64(1)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(1))})
	inst, err := lockers.Get(sale.Strategy, order.LockOptions(sale))
	if err != nil {
		t.Fatal(err)
	}
	key := svc.LockKey(sale.ID)

	purchases := herdPurchases(sale.ID)
	answers := sendHerd(t, replicas, purchases)
	outcomes, okIDs := herdOutcomes(t, purchases, answers)
	v := settledView(t, store, svc, sale.ID)
	t.Logf("outcomes %v; sold %d, stock %d, duplicates %d, lost updates %d", outcomes, v.Sold, v.Stock, v.Duplicates, v.LostUpdates)
	if v.Oversold != 0 || v.LostUpdates != 0 || v.Duplicates != 0 || v.Sold != stock-v.Stock {
		t.Fatalf("sold %d, stock %d of %d: oversold %d, lost updates %d, users over the limit %d", v.Sold, v.Stock, stock,
			v.Oversold, v.LostUpdates, v.Duplicates)
	}
	db := store.DB().WithContext(ctx)
	rowsAreTheAnswers(t, db, sale.ID, okIDs)
	biggest := biggestBatch(t, db, sale.ID)
	t.Logf("the biggest batch wrote %d orders", biggest)
	batched := biggest >= 2
	if !batched && outcomes[order.OutcomePersistTimeout] == 0 {
		t.Fatalf("no batch held two orders: the herd's units were persisted one by one")
	}

	r, err := reconcile.Check(ctx, store.DB(), inst.Reserver.(*redisstock.LuaStock), key, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Drift != 0 || r.StoreStock != r.DBStock || r.InFlight != 0 {
		t.Fatalf("reconciliation %+v: Redis's stock must equal the database's, nothing in flight", r)
	}
	if stock >= int64(len(purchases)) {
		errs := make([]error, len(answers))
		for i, a := range answers {
			errs[i] = a.err
		}
		unitForEveryRequest(t, purchases, errs, outcomes)
	}
	return batched
}

// herdPurchases are a group commit herd's requests on sale saleID: 100
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

// herdAnswer is what Buy answered one request of a herd.
type herdAnswer struct {
	o   inventory.Order
	err error
}

// sendHerd sends every purchase at once, alternating the replicas, and
// fails the test unless each request got exactly one answer.
func sendHerd(t *testing.T, replicas []*order.Service, purchases []order.Purchase) []herdAnswer {
	ctx := context.Background()
	answers := make([]herdAnswer, len(purchases))
	calls := make([]int, len(purchases)) // answers per request: each exactly one
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, p := range purchases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			o, _, err := replicas[i%2].Buy(ctx, p)
			mu.Lock()
			answers[i] = herdAnswer{o, err}
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

// herdOutcomes counts the answers by outcome and maps each order answered
// to its buyer; it fails the test on an order of another buyer or an
// answer that is no refusal a herd may get.
func herdOutcomes(t *testing.T, purchases []order.Purchase, answers []herdAnswer) (map[string]int, map[uint64]string) {
	outcomes := map[string]int{}
	okIDs := map[uint64]string{} // order id -> its buyer, from the answers
	for i, a := range answers {
		outcomes[order.OutcomeOf(a.err)]++
		switch {
		case a.err == nil:
			if a.o.ID == 0 || a.o.UserID != purchases[i].UserID {
				t.Fatalf("request %d (%s) got order %+v", i, purchases[i].UserID, a.o)
			}
			okIDs[a.o.ID] = a.o.UserID
		case errors.Is(a.err, order.ErrSoldOut), errors.Is(a.err, order.ErrLimitReached),
			errors.Is(a.err, order.ErrDuplicateRequest), errors.Is(a.err, order.ErrPersistTimeout):
		default:
			t.Fatalf("request %d (%s): %v", i, purchases[i].UserID, a.err)
		}
	}
	return outcomes, okIDs
}

// rowsAreTheAnswers checks that the sale's rows are exactly the orders
// answered, each of its buyer, and that no idempotency key made two.
func rowsAreTheAnswers(t *testing.T, db *gorm.DB, saleID uint64, okIDs map[uint64]string) {
	var rows []struct {
		ID     uint64
		UserID string
	}
	if err := db.Raw("SELECT id, user_id FROM orders WHERE sale_id = ?", saleID).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(okIDs) {
		t.Fatalf("%d rows for %d orders answered", len(rows), len(okIDs))
	}
	for _, r := range rows {
		if okIDs[r.ID] != r.UserID {
			t.Fatalf("row %d of %s was answered to %q", r.ID, r.UserID, okIDs[r.ID])
		}
	}
	var perKey []int64
	if err := db.Raw(`SELECT COUNT(*) FROM orders WHERE sale_id = ? AND idempotency_key IS NOT NULL
		GROUP BY user_id, idempotency_key`, saleID).Scan(&perKey).Error; err != nil {
		t.Fatal(err)
	}
	for _, n := range perKey {
		if n != 1 {
			t.Fatalf("an idempotency key made %d orders", n)
		}
	}
}

// biggestBatch is the most orders one batch of the sale wrote: a batch's
// orders share their created_at (one multi-row INSERT).
func biggestBatch(t *testing.T, db *gorm.DB, saleID uint64) int64 {
	var biggest int64
	if err := db.Raw(`SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM orders WHERE sale_id = ?
		GROUP BY replica_id, created_at) b`, saleID).Scan(&biggest).Error; err != nil {
		t.Fatal(err)
	}
	return biggest
}

// unitForEveryRequest checks a herd that had a unit for every request:
// every refusal is the limit's or the key's, so each buyer whose requests
// all got an answer from the database has exactly one order. A persist
// timeout (the machine too slow for the persist bound: the unit went back,
// no row) is the world's refusal, not a broken check: its buyer may then
// have none, and the exact split (140 orders, 40 over the limit, 40
// duplicates) is asserted only when there was none.
func unitForEveryRequest(t *testing.T, purchases []order.Purchase, errs []error, outcomes map[string]int) {
	t.Helper()
	ok, timedOut := map[string]int{}, map[string]bool{}
	for i, err := range errs {
		switch {
		case err == nil:
			ok[purchases[i].UserID]++
		case errors.Is(err, order.ErrPersistTimeout):
			timedOut[purchases[i].UserID] = true
		}
	}
	for _, p := range purchases {
		if !timedOut[p.UserID] && ok[p.UserID] != 1 {
			t.Fatalf("%s has %d orders with a unit for every request and no persist timeout: want 1 (outcomes %v)", p.UserID, ok[p.UserID], outcomes)
		}
	}
	if len(timedOut) == 0 && (outcomes[order.OutcomeOK] != 140 || outcomes[order.OutcomeLimitReached] != 40 ||
		outcomes[order.OutcomeDuplicate] != 40) {
		t.Fatalf("outcomes %v with a unit for every request: want 140 orders (one per buyer), 40 over the limit, 40 duplicates", outcomes)
	}
}
