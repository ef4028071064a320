package inventory

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// GivenBack is how many of a sale's units reconciliations gave back
// (ticket failures of reason ReasonAbandoned or ReasonStuck: units a dead
// replica had taken and not sold) and when the last of them was given
// back (nil when none was).
func GivenBack(ctx context.Context, db *gorm.DB, saleID uint64) (units int64, last *time.Time, err error) {
	var row struct {
		N    int64
		Last *time.Time
	}
	err = db.WithContext(ctx).Raw(`SELECT COUNT(*) AS n, MAX(failed_at) AS last FROM ticket_failures
WHERE sale_id = ? AND reason IN (?, ?)`, saleID, ReasonAbandoned, ReasonStuck).Scan(&row).Error
	if err != nil || row.Last == nil {
		return row.N, nil, err
	}
	t := row.Last.UTC()
	return row.N, &t, nil
}
