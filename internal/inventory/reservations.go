package inventory

import (
	"context"

	"gorm.io/gorm"
)

// OrderByID reads order id (gorm.ErrRecordNotFound when there is none).
func OrderByID(ctx context.Context, db *gorm.DB, id uint64) (Order, error) {
	var o Order
	err := db.WithContext(ctx).Take(&o, id).Error
	return o, err
}

// OrderByTicket reads the order made for ticket (gorm.ErrRecordNotFound
// when there is none).
func OrderByTicket(ctx context.Context, db *gorm.DB, ticket string) (Order, error) {
	var o Order
	err := db.WithContext(ctx).Where("order_ticket = ?", ticket).Take(&o).Error
	return o, err
}

// PayReservation pays reservation id inside tx if it is still reserved and
// within its pay_by (the database's clock decides, as for the expiry, so
// the two can never both win), and reads the order back: its status says
// whether it is paid.
func PayReservation(ctx context.Context, tx *gorm.DB, id uint64) (Order, error) {
	var o Order
	res := tx.WithContext(ctx).Exec(`UPDATE orders SET status = ?, paid_at = NOW(6)
			WHERE id = ? AND status = ? AND pay_by > NOW(6)`, StatusPaid, id, StatusReserved)
	if res.Error != nil {
		return o, res.Error
	}
	err := tx.WithContext(ctx).Take(&o, id).Error
	return o, err
}

// OrderRef names an order and its sale.
type OrderRef struct{ ID, SaleID uint64 }

// DueReservations lists the reservations past their pay_by, the longest
// due first, at most limit of them.
func DueReservations(ctx context.Context, db *gorm.DB, limit int) ([]OrderRef, error) {
	var dues []OrderRef
	err := db.WithContext(ctx).Raw(`SELECT id, sale_id FROM orders WHERE status = ? AND pay_by <= NOW(6) ORDER BY pay_by LIMIT ?`,
		StatusReserved, limit).Scan(&dues).Error
	return dues, err
}

// HalfReturned lists expired orders whose unit was given back to the
// database but not yet to the strategy's own stock, expired long enough
// ago (2s) that the replica returning it has stopped; at most limit.
func HalfReturned(ctx context.Context, db *gorm.DB, limit int) ([]OrderRef, error) {
	var left []OrderRef
	err := db.WithContext(ctx).Raw(`SELECT id, sale_id FROM orders WHERE status = ? AND NOT unit_returned
		AND expired_at <= NOW(6) - INTERVAL 2 SECOND LIMIT ?`, StatusExpired, limit).Scan(&left).Error
	return left, err
}

// ExpireReservation expires order id inside tx if it is still an unpaid
// reservation past its pay_by, and gives its unit back to sale saleID's
// stock (moving the version, so that a CAS writer that read before
// retries); a split sale's unit lands in its shard 0. unitReturned false leaves a return to the strategy's own stock
// due. expired false: paid or expired meanwhile, nothing written.
func ExpireReservation(ctx context.Context, tx *gorm.DB, id, saleID uint64, unitReturned bool) (expired bool, err error) {
	res := tx.WithContext(ctx).Exec(`UPDATE orders SET status = ?, expired_at = NOW(6), unit_returned = ?
			WHERE id = ? AND status = ? AND pay_by <= NOW(6)`, StatusExpired, unitReturned, id, StatusReserved)
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	split, err := landUnits(ctx, tx, saleID, 1)
	if err != nil {
		return false, err
	}
	back := 1 // into sales.stock, or already into the split sale's shard 0
	if split {
		back = 0
	}
	return true, tx.WithContext(ctx).Exec("UPDATE sales SET stock = stock + ?, version = version + 1, updated_at = NOW(6) WHERE id = ?",
		back, saleID).Error
}

// NoteUnitReturned notes that expired order id's unit is back in the
// strategy's own stock.
func NoteUnitReturned(ctx context.Context, db *gorm.DB, id uint64) error {
	return db.WithContext(ctx).Exec("UPDATE orders SET unit_returned = 1 WHERE id = ?", id).Error
}
