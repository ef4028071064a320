package order

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// saleBatch is the buyers one combined critical section serves (combine.go)
// and, once it ran, each one's answer.
type saleBatch struct {
	buyers  []Purchase
	answers []batchResult
	// decided: the answers stand although the section returned an error:
	// every buyer was refused (sold out, over the limit, a repeated key)
	// and nothing was written.
	decided bool
	orders  int // orders made (committed with the section)
}

// batchResult is one buyer's order or refusal.
type batchResult struct {
	o   inventory.Order
	err error
}

// runBatch is run for a batch, in tx under the held lock: read the stock
// once; refuse each buyer whose idempotency key already made an order or
// whose per-user limit is reached (counting the batch's own orders); give
// the others units in arrival order while the stock lasts; then the work
// once, the lease check once, one multi-row insert and one stock write by n
// (fenced with the lease's token when fencing is on), the write last so
// that the sale's row is held from it to the COMMIT only. A failure at any step
// fails the batch whole: nothing is written for anyone.
func (cs criticalSection) runBatch(ctx context.Context, tx *gorm.DB) (inventory.Order, error) {
	b := cs.batch
	row, err := inventory.ReadStock(ctx, tx, cs.sale.ID)
	if err != nil {
		return inventory.Order{}, err
	}
	selling, err := cs.refuseInBatch(ctx, tx, row.Stock)
	if err != nil {
		return inventory.Order{}, err
	}
	if len(selling) == 0 {
		b.decided = true
		return inventory.Order{}, firstRefusal(b.answers)
	}
	if err := cs.work(ctx); err != nil { // the business work, once for the batch, then the lease check
		return inventory.Order{}, err
	}
	n := int64(len(selling))
	orders := make([]inventory.Order, n)
	now := time.Now()
	for k, i := range selling {
		o := inventory.NewOrder(cs.sale, b.buyers[i].UserID, cs.replica, now)
		o.FenceToken = cs.token
		if key := b.buyers[i].IdempotencyKey; key != "" {
			o.IdempotencyKey = &key
		}
		left := row.Stock - int64(k) - 1 // as if the batch's orders were written one by one
		o.StockLeft = &left
		orders[k] = o
	}
	if err := inventory.InsertOrders(ctx, tx, orders); err != nil {
		return inventory.Order{}, err
	}
	// The stock write last: the sale's row is held from it to the COMMIT.
	if err := cs.writeBatch(ctx, tx, row.Stock-n); err != nil {
		return inventory.Order{}, err
	}
	for k, i := range selling {
		b.answers[i] = batchResult{o: orders[k]}
	}
	b.orders = len(orders)
	return orders[0], nil
}

// writeBatch writes the stock the batch left: the read minus the units
// sold, under the lock; fenced, only while the lease's token is the fence.
func (cs criticalSection) writeBatch(ctx context.Context, tx *gorm.DB, newStock int64) error {
	if cs.kind == writeFenced {
		return inventory.WriteStockFenced(ctx, tx, cs.sale.ID, newStock, cs.token)
	}
	return inventory.WriteStock(ctx, tx, cs.sale.ID, newStock)
}

// refuseInBatch answers the buyers who get no unit (b.answers) and returns
// the indexes of those who do, in arrival order: at most stock of them.
func (cs criticalSection) refuseInBatch(ctx context.Context, tx *gorm.DB, stock int64) ([]int, error) {
	b := cs.batch
	who := make([]inventory.Buyer, len(b.buyers))
	for i, p := range b.buyers {
		who[i] = inventory.Buyer{UserID: p.UserID, Key: p.IdempotencyKey}
	}
	ledger, err := inventory.LoadLedger(ctx, tx, cs.sale, who, stock, inventory.LedgerReads{})
	if err != nil {
		return nil, err
	}
	var selling []int
	for i, k := range who {
		if b.answers[i].err = refusal(ledger.Take(k)); b.answers[i].err == nil {
			selling = append(selling, i)
		}
	}
	return selling, nil
}

// firstRefusal is the error a batch that sold nothing ends with: the
// section's outcome (sold out before over the limit before a repeated key).
func firstRefusal(answers []batchResult) error {
	for _, want := range []error{ErrSoldOut, ErrLimitReached, ErrDuplicateRequest} {
		for _, a := range answers {
			if a.err == want {
				return want
			}
		}
	}
	return ErrSoldOut
}
