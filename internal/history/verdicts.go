package history

import (
	"context"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// Verdicts keeps each sale's last Result, so that a view polled every
// second checks a sale again only when its record grew, and at most once
// every recheckEvery while it grows (a live sale).
type Verdicts struct {
	mu sync.Mutex
	m  map[uint64]verdict
}

type verdict struct {
	rows  int64
	maxID uint64
	// settled: the check ran AnswerGrace after the newest answer and order,
	// so no order could still turn into a Lost marker without a change.
	settled bool
	at      time.Time
	r       Result
}

const (
	recheckEvery = 2 * time.Second
	keepSales    = 1000 // past this many sales the cache starts over
)

// Of returns sale saleID's verdict over its record (initialStock units),
// checked within bound when the record changed since the last check.
func (v *Verdicts) Of(ctx context.Context, db *gorm.DB, saleID uint64, initialStock int64, bound time.Duration) (Result, error) {
	var size struct {
		Rows       int64
		MaxID      uint64
		LastReturn *time.Time
		LastOrder  *time.Time
	}
	err := db.WithContext(ctx).Raw("SELECT COUNT(*) AS `rows`, COALESCE(MAX(id), 0) AS max_id, MAX(return_at) AS last_return "+
		"FROM order_history WHERE sale_id = ?", saleID).Scan(&size).Error
	if err != nil {
		return Result{}, err
	}
	if size.LastOrder, err = inventory.LastOrderAt(ctx, db, saleID); err != nil {
		return Result{}, err
	}
	v.mu.Lock()
	last, ok := v.m[saleID]
	v.mu.Unlock()
	same := last.rows == size.Rows && last.maxID == size.MaxID && last.settled
	if ok && (same || time.Since(last.at) < recheckEvery) {
		return last.r, nil
	}
	now := time.Now()
	ops, err := Load(ctx, db, saleID)
	if err != nil {
		return Result{}, err
	}
	r := Check(ops, initialStock, bound)
	v.mu.Lock()
	if v.m == nil || len(v.m) >= keepSales {
		v.m = map[uint64]verdict{}
	}
	settled := true
	for _, t := range []*time.Time{size.LastReturn, size.LastOrder} {
		settled = settled && (t == nil || now.After(t.Add(AnswerGrace)))
	}
	v.m[saleID] = verdict{rows: size.Rows, maxID: size.MaxID, settled: settled, at: now, r: r}
	v.mu.Unlock()
	return r, nil
}
