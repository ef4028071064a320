package inventory

import (
	"context"

	"gorm.io/gorm"
)

// The reads the chaos checks make of a sale's rows after a run.

// CountSold counts a sale's orders that are sold (not expired: an expired
// reservation gave its unit back).
func CountSold(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND status <> ?", saleID, StatusExpired).
		Scan(&n).Error
	return n, err
}

// CountFailed counts a sale's tickets that failed for reason.
func CountFailed(ctx context.Context, db *gorm.DB, saleID uint64, reason string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM ticket_failures WHERE sale_id = ? AND reason = ?", saleID, reason).
		Scan(&n).Error
	return n, err
}

// CountUnsettled counts a sale's reservations past due by more than a
// second on the database's clock, and its expired units not yet back in
// the strategy's own stock.
func CountUnsettled(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND (status = 'reserved' "+
		"AND pay_by < NOW(6) - INTERVAL 1 SECOND OR status = 'expired' AND NOT unit_returned)", saleID).Scan(&n).Error
	return n, err
}

// TicketOrder is an order's buyer and ticket, and whether it was paid
// after its pay_by.
type TicketOrder struct {
	UserID      string
	OrderTicket *string
	Late        bool // paid after its pay-by
}

// TicketOrders lists a sale's orders as TicketOrders.
func TicketOrders(ctx context.Context, db *gorm.DB, saleID uint64) ([]TicketOrder, error) {
	var rows []TicketOrder
	err := db.WithContext(ctx).Raw("SELECT user_id, order_ticket, "+
		"(status = 'paid' AND paid_at IS NOT NULL AND pay_by IS NOT NULL AND paid_at > pay_by) AS late "+
		"FROM orders WHERE sale_id = ?", saleID).Scan(&rows).Error
	return rows, err
}

// SaleOrders lists a sale's orders.
func SaleOrders(ctx context.Context, db *gorm.DB, saleID uint64) ([]Order, error) {
	var rows []Order
	err := db.WithContext(ctx).Where("sale_id = ?", saleID).Find(&rows).Error
	return rows, err
}
