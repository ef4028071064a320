package inventory

import (
	"context"

	"gorm.io/gorm"
)

// LockSaleStock reads a sale's stock holding its row (FOR UPDATE): the
// writers of a batch of orders take turns on it, and each sees what the
// previous committed. ErrSaleNotFound when there is no such sale. Its
// callers persist the units of a strategy that keeps its own stock
// (redis-lua-stock), whose database stock is never split (SplitStock):
// the row is the whole stock, and a locking read of the shards' table
// would only take gap locks that new sales' shards wait for.
func LockSaleStock(ctx context.Context, tx *gorm.DB, saleID uint64) (int64, error) {
	var stock []int64
	if err := tx.WithContext(ctx).Raw("SELECT stock FROM sales WHERE id = ? FOR UPDATE", saleID).Scan(&stock).Error; err != nil {
		return 0, err
	}
	if len(stock) == 0 {
		return 0, ErrSaleNotFound
	}
	return stock[0], nil
}

// TicketsOrdered is those of tickets that are orders, in one query.
func TicketsOrdered(ctx context.Context, tx *gorm.DB, tickets []string) ([]string, error) {
	var done []string
	err := tx.WithContext(ctx).Raw("SELECT order_ticket FROM orders WHERE order_ticket IN ?", tickets).Scan(&done).Error
	return done, err
}

// TicketsFailed maps those of tickets that failed to their reason, in one
// query.
func TicketsFailed(ctx context.Context, tx *gorm.DB, tickets []string) (map[string]string, error) {
	var failed []struct{ OrderTicket, Reason string }
	if err := tx.WithContext(ctx).Raw("SELECT order_ticket, reason FROM ticket_failures WHERE order_ticket IN ?", tickets).
		Scan(&failed).Error; err != nil {
		return nil, err
	}
	out := make(map[string]string, len(failed))
	for _, f := range failed {
		out[f.OrderTicket] = f.Reason
	}
	return out, nil
}

// InsertTicketFailures inserts failures inside tx, in multi-row INSERTs
// of at most 200 rows.
func InsertTicketFailures(ctx context.Context, tx *gorm.DB, failures []TicketFailure) error {
	if len(failures) == 0 {
		return nil
	}
	return tx.WithContext(ctx).CreateInBatches(&failures, 200).Error
}

// TicketFailureOf reads ticket's failure (gorm.ErrRecordNotFound when it
// did not fail).
func TicketFailureOf(ctx context.Context, db *gorm.DB, ticket string) (TicketFailure, error) {
	var f TicketFailure
	err := db.WithContext(ctx).Where("order_ticket = ?", ticket).Take(&f).Error
	return f, err
}

// InsertQueuedOrders inserts a queue consumer's orders inside tx, in
// multi-row INSERTs of at most 200 rows (their ids are not read back).
func InsertQueuedOrders(ctx context.Context, tx *gorm.DB, orders []Order) error {
	if len(orders) == 0 {
		return nil
	}
	return tx.WithContext(ctx).CreateInBatches(&orders, 200).Error
}
