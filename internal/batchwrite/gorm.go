package batchwrite

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// WriteTimeout bounds one batch's insert.
const WriteTimeout = 10 * time.Second

// Into is the insert of rows T into their gorm table, BatchSize rows a
// statement.
func Into[T any](db *gorm.DB) func(batch []T) error {
	return func(batch []T) error {
		ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
		defer cancel()
		return db.WithContext(ctx).CreateInBatches(batch, BatchSize).Error
	}
}
