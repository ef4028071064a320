// Package reconcile checks a stock kept in Redis (redis-lua-stock, both
// order modes) against the database, the truth: per sale, Redis's stock +
// the units in flight (queued or being persisted) + expired units not yet
// given back must equal the database's stock. It reports the difference
// (drift) and, on request, repairs Redis's stock by it (Check, Repair).
// It also reclaims the units a dead replica left in flight: each becomes
// sold (its order is a row) or goes back on sale (Reclaim); Job does both
// for the recent sales, on one replica at a time.
package reconcile

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
)

// Store is the Redis side: redisstock.LuaStock.
type Store interface {
	Snapshot(ctx context.Context, key string) (redisstock.StockSnapshot, error)
	Settled(ctx context.Context, key string, r lockstrategy.Reservation) error
	Unreserve(ctx context.Context, key string, r lockstrategy.Reservation) error
	Adjust(ctx context.Context, key string, units int64) (bool, error)
	ReturnedAmong(ctx context.Context, key string, ids []uint64) ([]bool, error)
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
	if r.DBStock, err = inventory.SaleStock(ctx, db, saleID); err != nil {
		return r, err
	}
	for start := 0; start < len(snap.InFlight); start += 1000 {
		chunk := snap.InFlight[start:min(start+1000, len(snap.InFlight))]
		n, err := inventory.CountTicketsOrdered(ctx, db, chunk)
		if err != nil {
			return r, err
		}
		r.PersistedInFlight += n
	}
	if stale := append(snap.Stale, snap.StaleQueued...); len(stale) > 0 {
		n, err := inventory.CountTicketsOrdered(ctx, db, stale)
		if err != nil {
			return r, err
		}
		r.Stuck = int64(len(stale)) - n
	}
	expired, err := inventory.CountExpired(ctx, db, saleID)
	if err != nil {
		return r, err
	}
	if r.LostReturns, err = lostReturns(ctx, db, st, key, saleID); err != nil {
		return r, err
	}
	r.ExpiredUnreturned = expired - snap.Returned - r.LostReturns
	if r.PersistedAfter, err = inventory.CountAcceptedSince(ctx, db, saleID, snap.At); err != nil {
		return r, err
	}
	if r.StoreStock < 0 {
		return r, nil // lost: nothing to compare until it is rebuilt
	}
	// A stuck unit is not counted in flight: it is not coming back by
	// itself, so it shows as drift until it is reclaimed.
	redisSide := r.StoreStock + r.InFlight - r.Stuck - r.PersistedInFlight + r.ExpiredUnreturned
	r.Drift = r.DBStock + r.PersistedAfter - redisSide
	return r, nil
}

// lostReturns counts the expired orders the database says are back in
// Redis (unit_returned: set only after the return script succeeded) that
// Redis's returned set does not hold: Redis lost the return (a restart
// that lost its last writes). Counting them as "still to come back" would
// hide, for ever, units that never will; they are drift. The membership is
// read after the database, so a return that ran after the snapshot is a
// member by now (and a rebuild puts every expired order in the set).
func lostReturns(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64) (int64, error) {
	ids, err := inventory.ExpiredReturned(ctx, db, saleID)
	if err != nil {
		return 0, err
	}
	var lost int64
	for start := 0; start < len(ids); start += 1000 {
		in, err := st.ReturnedAmong(ctx, key, ids[start:min(start+1000, len(ids))])
		if err != nil {
			return 0, err
		}
		for _, member := range in {
			if !member {
				lost++
			}
		}
	}
	return lost, nil
}

// Repair checks sale and, if Redis's stock drifted, moves it by the drift
// (a delta, so that orders taken meanwhile stay counted); a lost stock is
// rebuilt from the database. It returns the check before and after.
// Stuck units are reclaimed first (Reclaim): they go back once, never by
// the drift as well.
func Repair(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64) (before, after inventory.Reconciliation, repaired bool, err error) {
	before, err = Check(ctx, db, st, key, saleID)
	if err != nil {
		return before, after, false, err
	}
	if before.Stuck > 0 {
		n, err := Reclaim(ctx, db, st, key, saleID)
		if err != nil {
			return before, after, false, err
		}
		repaired = n > 0
		if before, err = Check(ctx, db, st, key, saleID); err != nil {
			return before, after, repaired, err
		}
	}
	switch {
	case before.StoreStock < 0:
		stock, returned, err := inventory.NewStore(db).StockAndReturned(ctx, saleID)
		if err != nil {
			return before, after, false, err
		}
		if err := st.RestoreStock(ctx, key, stock, returned); err != nil {
			return before, after, repaired, err
		}
		repaired = true
	case before.Drift != 0:
		ok, err := st.Adjust(ctx, key, before.Drift)
		if err != nil {
			return before, after, repaired, err
		}
		repaired = repaired || ok
	}
	after, err = Check(ctx, db, st, key, saleID)
	if err != nil {
		return before, after, repaired, fmt.Errorf("reconcile: checking after the repair: %w", err)
	}
	return before, after, repaired, nil
}
