package timeline

import (
	"context"
	"database/sql"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// window is the span asked for; a zero bound is open.
type window struct{ from, to time.Time }

// loadSections reads the sale's sections that overlap w, in entry order.
func loadSections(ctx context.Context, db *gorm.DB, saleID uint64, w window) ([]sectionlog.Section, error) {
	q := `SELECT id, replica_id, token, wait_at, enter_at, exit_at, order_id, outcome, batch_buyers, batch_orders FROM critical_sections
		WHERE sale_id = ?`
	args := []any{saleID}
	if !w.to.IsZero() {
		q += ` AND enter_at <= ?`
		args = append(args, w.to)
	}
	if !w.from.IsZero() {
		q += ` AND exit_at >= ?`
		args = append(args, w.from)
	}
	rows, err := db.WithContext(ctx).Raw(q+` ORDER BY enter_at, id`, args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sectionlog.Section
	for rows.Next() {
		s := sectionlog.Section{SaleID: saleID}
		var wait sql.NullTime
		var order sql.NullInt64
		var outcome sql.NullString
		if err := rows.Scan(&s.ID, &s.ReplicaID, &s.Token, &wait, &s.EnterAt, &s.ExitAt, &order, &outcome, &s.BatchBuyers, &s.BatchOrders); err != nil {
			return nil, err
		}
		if wait.Valid {
			s.WaitAt = &wait.Time
		}
		if order.Valid {
			id := uint64(order.Int64)
			s.OrderID = &id
		}
		s.Outcome = outcome.String
		out = append(out, s)
	}
	return out, rows.Err()
}

// loadOrderTimes reads when each of the sale's orders was made, in order.
func loadOrderTimes(ctx context.Context, db *gorm.DB, saleID uint64) ([]time.Time, error) {
	return inventory.OrderTimes(ctx, db, saleID)
}

// leaseRow and faultRow are the event tables as read.
type leaseRow struct {
	ReplicaID string
	Token     uint64
	Event     string
	At        time.Time
	TTLMS     int64 `gorm:"column:ttl_ms"`
}

type faultRow struct {
	Kind      string
	ReplicaID string
	Target    string
	FromAt    time.Time
	ToAt      *time.Time
}

// maxEvents bounds the lease and fault events one answer carries.
const maxEvents = 20_000

func loadLeases(ctx context.Context, db *gorm.DB, saleID uint64, w window) ([]leaseRow, error) {
	var rows []leaseRow
	err := db.WithContext(ctx).Raw(`SELECT replica_id, token, event, at, ttl_ms FROM lease_events
		WHERE sale_id = ? AND at BETWEEN ? AND ? ORDER BY at, id LIMIT ?`, saleID, w.from, w.to, maxEvents).Scan(&rows).Error
	return rows, err
}

// loadFaults reads the faults whose window meets w: those aimed at the sale
// and those aimed at a whole replica.
func loadFaults(ctx context.Context, db *gorm.DB, saleID uint64, w window) ([]faultRow, error) {
	var rows []faultRow
	err := db.WithContext(ctx).Raw(`SELECT kind, replica_id, target, from_at, to_at FROM fault_events
		WHERE (sale_id IS NULL OR sale_id = ?) AND from_at <= ? AND COALESCE(to_at, from_at) >= ?
		ORDER BY from_at, id LIMIT ?`, saleID, w.to, w.from, maxEvents).Scan(&rows).Error
	return rows, err
}
