package eventlog

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// NewestFault is the newest fault of kind injected between from and to
// (both included); ok is false when there is none.
func NewestFault(ctx context.Context, db *gorm.DB, kind string, from, to time.Time) (f Fault, ok bool, err error) {
	res := db.WithContext(ctx).Where("kind = ? AND from_at >= ? AND from_at <= ?", kind, from, to).
		Order("from_at DESC").Limit(1).Find(&f)
	return f, res.RowsAffected > 0, res.Error
}
