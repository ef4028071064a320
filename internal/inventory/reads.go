package inventory

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"gorm.io/gorm"
)

// The reads of sales and orders that the checks, the repairs and the
// reports make outside the order path.

// SaleStock reads a sale's stock, the sum of its shards (sql.ErrNoRows when there is no such
// sale).
func SaleStock(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	var stock int64
	err := db.WithContext(ctx).Raw("SELECT "+stockSum+" FROM sales s WHERE s.id = ?", saleID).Row().Scan(&stock)
	return stock, err
}

// SaleStocks reads the stock of each of the sales ids, in one query; a
// sale that does not exist has no entry.
func SaleStocks(ctx context.Context, db *gorm.DB, ids []uint64) (map[uint64]int64, error) {
	var rows []struct {
		ID    uint64
		Stock int64
	}
	if err := db.WithContext(ctx).Raw("SELECT s.id, "+stockSum+" AS stock FROM sales s WHERE s.id IN ?", ids).Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[uint64]int64, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Stock
	}
	return out, nil
}

// SaleOpensAt reads when a sale opens.
func SaleOpensAt(ctx context.Context, db *gorm.DB, saleID uint64) (time.Time, error) {
	var opens time.Time
	err := db.WithContext(ctx).Raw("SELECT opens_at FROM sales WHERE id = ?", saleID).Row().Scan(&opens)
	return opens, err
}

// NewestSalesOf lists the newest sales (at most limit) whose strategy is
// one of strategies.
func NewestSalesOf(ctx context.Context, db *gorm.DB, strategies []string, limit int) ([]Sale, error) {
	var sales []Sale
	if err := db.WithContext(ctx).Where("strategy IN ?", strategies).Order("id DESC").Limit(limit).Find(&sales).Error; err != nil {
		return nil, err
	}
	return sales, sumShards(ctx, db, sales)
}

// CountTicketsOrdered counts those of tickets that are orders.
func CountTicketsOrdered(ctx context.Context, db *gorm.DB, tickets []string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE order_ticket IN ?", tickets).Scan(&n).Error
	return n, err
}

// CountExpired counts a sale's expired orders.
func CountExpired(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND status = ?", saleID, StatusExpired).
		Scan(&n).Error
	return n, err
}

// ExpiredReturned lists a sale's expired orders whose unit is back in the
// strategy's own stock (unit_returned).
func ExpiredReturned(ctx context.Context, db *gorm.DB, saleID uint64) ([]uint64, error) {
	var ids []uint64
	err := db.WithContext(ctx).Raw("SELECT id FROM orders WHERE sale_id = ? AND status = ? AND unit_returned", saleID, StatusExpired).
		Scan(&ids).Error
	return ids, err
}

// CountAcceptedSince counts a sale's orders whose unit was taken at or
// after at.
func CountAcceptedSince(ctx context.Context, db *gorm.DB, saleID uint64, at time.Time) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND accepted_at >= ?", saleID, at).
		Scan(&n).Error
	return n, err
}

// SoldSpan is how many of a sale's orders are sold (not expired) and when
// the first and the last were taken (accepted, or made).
type SoldSpan struct {
	N     int64
	First *time.Time
	Last  *time.Time
}

// SoldSpanOf reads a sale's SoldSpan.
func SoldSpanOf(ctx context.Context, db *gorm.DB, saleID uint64) (SoldSpan, error) {
	var span SoldSpan
	err := db.WithContext(ctx).Raw(`SELECT COUNT(*) AS n, MIN(COALESCE(accepted_at, created_at)) AS first,
		MAX(COALESCE(accepted_at, created_at)) AS last FROM orders WHERE sale_id = ? AND status <> ?`,
		saleID, StatusExpired).Scan(&span).Error
	return span, err
}

// OrderTimes reads when each of a sale's orders was made, in order.
func OrderTimes(ctx context.Context, db *gorm.DB, saleID uint64) ([]time.Time, error) {
	var at []time.Time
	err := db.WithContext(ctx).Raw(`SELECT created_at FROM orders WHERE sale_id = ? ORDER BY created_at, id`, saleID).
		Scan(&at).Error
	return at, err
}

// OrderMade is an order's id and when it was made.
type OrderMade struct {
	ID        uint64
	CreatedAt time.Time
}

// OrdersMadeBefore lists a sale's orders made before t.
func OrdersMadeBefore(ctx context.Context, db *gorm.DB, saleID uint64, t time.Time) ([]OrderMade, error) {
	var orders []OrderMade
	err := db.WithContext(ctx).Raw("SELECT id, created_at FROM orders WHERE sale_id = ? AND created_at < ?", saleID, t).
		Scan(&orders).Error
	return orders, err
}

// FailedAt lists when each of a sale's tickets that failed for reason
// failed.
func FailedAt(ctx context.Context, db *gorm.DB, saleID uint64, reason string) ([]time.Time, error) {
	var at []time.Time
	err := db.WithContext(ctx).Raw("SELECT failed_at FROM ticket_failures WHERE sale_id = ? AND reason = ?", saleID, reason).
		Scan(&at).Error
	return at, err
}

// LastOrderAt reads when a sale's last order was made (nil: none yet).
func LastOrderAt(ctx context.Context, db *gorm.DB, saleID uint64) (*time.Time, error) {
	var last *time.Time
	err := db.WithContext(ctx).Raw("SELECT MAX(created_at) FROM orders WHERE sale_id = ?", saleID).Scan(&last).Error
	return last, err
}

// HoldSaleRow takes a sale's row lock (SELECT ... FOR UPDATE) inside tx, a
// transaction of database/sql's; ErrSaleNotFound when there is no such
// sale. The row stays held until tx ends.
func HoldSaleRow(ctx context.Context, tx *sql.Tx, saleID uint64) error {
	var id uint64
	err := tx.QueryRowContext(ctx, "SELECT id FROM sales WHERE id = ? FOR UPDATE", saleID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrSaleNotFound
	}
	return err
}
