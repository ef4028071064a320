// Package reconcile checks a stock kept in Redis (redis-lua-stock, both
// order modes) against the database, the truth: per sale, Redis's stock +
// the units in flight (queued or being persisted) + expired units not yet
// given back must equal the database's stock. It reports the difference
// (drift) and, on request, repairs Redis's stock by it.
package reconcile

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redislock"
)

// Store is the Redis side: redislock.LuaStock.
type Store interface {
	Snapshot(ctx context.Context, key string) (redislock.StockSnapshot, error)
	Adjust(ctx context.Context, key string, units int64) (bool, error)
	RestoreStock(ctx context.Context, key string, stock int64, returned []uint64) error
}

// Check compares sale's stock in Redis (under key) with the database's.
//
// Redis is read first, in one script (stock, in-flight tickets, returned
// count, its clock T), then the database. What happens between the two
// reads is counted on the right side: a ticket in flight at T and persisted
// since is an order now (persisted_in_flight); a ticket accepted after T
// and persisted since moved the database's stock only (persisted_after,
// found by accepted_at >= T); an order expired since is counted by the
// database's expired count against Redis's returned count at T.
func Check(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64) (inventory.Reconciliation, error) {
	var r inventory.Reconciliation
	snap, err := st.Snapshot(ctx, key)
	if err != nil {
		return r, err
	}
	r.StoreStock, r.InFlight, r.CheckedAt = snap.Stock, int64(len(snap.InFlight)), time.Now().UTC()
	d := db.WithContext(ctx)
	if err := d.Raw("SELECT stock FROM sales WHERE id = ?", saleID).Scan(&r.DBStock).Error; err != nil {
		return r, err
	}
	for start := 0; start < len(snap.InFlight); start += 1000 {
		chunk := snap.InFlight[start:min(start+1000, len(snap.InFlight))]
		var n int64
		if err := d.Raw("SELECT COUNT(*) FROM orders WHERE order_ticket IN ?", chunk).Scan(&n).Error; err != nil {
			return r, err
		}
		r.PersistedInFlight += n
	}
	var expired int64
	if err := d.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND status = ?", saleID, inventory.StatusExpired).
		Scan(&expired).Error; err != nil {
		return r, err
	}
	r.ExpiredUnreturned = expired - snap.Returned
	if err := d.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND accepted_at >= ?", saleID, snap.At).
		Scan(&r.PersistedAfter).Error; err != nil {
		return r, err
	}
	if r.StoreStock < 0 {
		return r, nil // lost: nothing to compare until it is rebuilt
	}
	redisSide := r.StoreStock + r.InFlight - r.PersistedInFlight + r.ExpiredUnreturned
	r.Drift = r.DBStock + r.PersistedAfter - redisSide
	return r, nil
}

// Repair checks sale and, if Redis's stock drifted, moves it by the drift
// (a delta, so that orders taken meanwhile stay counted); a lost stock is
// rebuilt from the database. It returns the check before and after.
func Repair(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64) (before, after inventory.Reconciliation, repaired bool, err error) {
	before, err = Check(ctx, db, st, key, saleID)
	if err != nil {
		return before, after, false, err
	}
	switch {
	case before.StoreStock < 0:
		stock, returned, err := inventory.NewStore(db).StockAndReturned(ctx, saleID)
		if err != nil {
			return before, after, false, err
		}
		if err := st.RestoreStock(ctx, key, stock, returned); err != nil {
			return before, after, false, err
		}
		repaired = true
	case before.Drift != 0:
		ok, err := st.Adjust(ctx, key, before.Drift)
		if err != nil {
			return before, after, false, err
		}
		repaired = ok
	}
	after, err = Check(ctx, db, st, key, saleID)
	if err != nil {
		return before, after, repaired, fmt.Errorf("reconcile: checking after the repair: %w", err)
	}
	return before, after, repaired, nil
}
