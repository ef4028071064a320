package order

import (
	"context"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// batchLedger decides a batch of buyers in arrival order, the checks of one
// order made for many: a repeated idempotency key, the per-user limit, the
// stock. It is read once, where nothing else can write the sale's orders
// meanwhile (under the sale's lock, or holding its row), and counts each
// buyer it lets through, so that a key or a buyer repeated inside the batch
// is refused as the database would refuse it. Combining's batches
// (batch.go) and redis-lua-stock's group commit (groupcommit.go) decide
// with it.
type batchLedger struct {
	limit  int64
	keys   map[userKey]bool // keys that made an order
	orders map[string]int64 // orders per buyer (with a limit only)
	left   int64            // units left
}

// userKey is a buyer's idempotency key: unique per sale and user.
type userKey struct{ user, key string }

// loadLedger reads, in one query each, which of the buyers' keys already
// made an order of the sale and (with a per-user limit) how many orders
// each buyer has; stock is the units left, read by the caller.
func loadLedger(ctx context.Context, tx *gorm.DB, sale inventory.Sale, buyers []userKey, stock int64) (batchLedger, error) {
	l := batchLedger{limit: int64(sale.PerUserLimit), keys: map[userKey]bool{}, orders: map[string]int64{}, left: stock}
	var keys []string
	users := make([]string, 0, len(buyers))
	for _, b := range buyers {
		users = append(users, b.user)
		if b.key != "" {
			keys = append(keys, b.key)
		}
	}
	if len(keys) > 0 {
		pairs, err := inventory.KeysUsed(ctx, tx, sale.ID, keys)
		if err != nil {
			return l, err
		}
		for _, p := range pairs {
			l.keys[userKey{p[0], p[1]}] = true
		}
	}
	if l.limit > 0 {
		var err error
		if l.orders, err = inventory.CountUsersOrders(ctx, tx, sale.ID, users); err != nil {
			return l, err
		}
	}
	return l, nil
}

// take says why buyer b gets no unit (ErrDuplicateRequest,
// ErrLimitReached, ErrSoldOut); nil: it gets one, and is counted (its key
// used, its orders and the units left moved).
func (l *batchLedger) take(b userKey) error {
	switch {
	case b.key != "" && l.keys[b]:
		return ErrDuplicateRequest
	case l.limit > 0 && l.orders[b.user] >= l.limit:
		return ErrLimitReached
	case l.left <= 0:
		return ErrSoldOut
	}
	if b.key != "" {
		l.keys[b] = true
	}
	if l.limit > 0 {
		l.orders[b.user]++
	}
	l.left--
	return nil
}
