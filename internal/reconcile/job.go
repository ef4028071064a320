package reconcile

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Job re-checks the newest sales whose strategy keeps a stock in Redis,
// every Interval, on one replica at a time (a lease in Redis): it records
// each result on the sale (the sales list shows it) and reports drift.
// Before that it reclaims the units dead replicas left in flight, in every
// sale that has one (Reclaim): a unit taken is sold or back on sale within
// about reserved.Stale + Interval of its taking, whatever
// process died. It never repairs a drift: a repair is asked for (POST
// /api/sales/{id}/reconcile).
type Job struct {
	DB       *gorm.DB
	Redis    *redis.Client // the lease; the stores come from Stores
	Lockers  *lockstrategy.Instances
	SaleKey  func(saleID uint64) string
	Owner    string // this replica's id
	Interval time.Duration
	Sales    int // how many of the newest sales; 20
	Log      *slog.Logger
	OnDrift  func(saleID uint64, drift int64) // every result; may be nil
}

// Run checks until ctx ends.
func (j Job) Run(ctx context.Context) {
	if j.Interval <= 0 {
		j.Interval = 2 * time.Second
	}
	if j.Sales <= 0 {
		j.Sales = 20
	}
	lease := j.DB.Migrator().CurrentDatabase() + ":reconciler"
	t := time.NewTicker(j.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, err := j.Redis.SetNX(ctx, lease, j.Owner, 2*j.Interval).Result()
		if err != nil || !ok {
			if owner, _ := j.Redis.Get(ctx, lease).Result(); owner != j.Owner {
				continue
			}
			j.Redis.PExpire(ctx, lease, 2*j.Interval)
		}
		j.reclaimAll(ctx, lease)
		j.checkAll(ctx)
	}
}

// inFlightIndex is a store that lists the sales with synchronous units in
// flight (redisnaive.LuaStock).
type inFlightIndex interface {
	Store
	SalesInFlight(ctx context.Context, keyspace string) ([]string, error)
}

// reclaimAll reclaims the stale units of every sale in the store's index
// of sales with units in flight.
func (j Job) reclaimAll(ctx context.Context, lease string) {
	for _, name := range lockstrategy.Queueing() {
		inst, err := j.Lockers.Get(name, lockstrategy.Options{})
		if err != nil {
			continue
		}
		idx, ok := lockstrategy.As[inFlightIndex](inst)
		if !ok {
			continue
		}
		keyspace := strings.TrimSuffix(lease, ":reconciler")
		keys, err := idx.SalesInFlight(ctx, keyspace)
		if err != nil {
			j.Log.Warn("reclaim: listing the sales with units in flight", "err", err)
			continue
		}
		for _, key := range keys {
			saleID, err := strconv.ParseUint(key[strings.LastIndex(key, ":")+1:], 10, 64)
			if err != nil {
				continue
			}
			n, err := Reclaim(ctx, j.DB, idx, key, saleID)
			if err != nil {
				j.Log.Warn("reclaim: settling units left in flight", "sale", saleID, "err", err)
			}
			if n > 0 {
				j.Log.Warn("reclaimed units a replica left in flight", "sale", saleID, "units", n)
			}
		}
	}
}

func (j Job) checkAll(ctx context.Context) {
	sales, err := inventory.NewestSalesOf(ctx, j.DB, lockstrategy.Queueing(), j.Sales)
	if err != nil {
		return
	}
	store := inventory.NewStore(j.DB)
	for _, sl := range sales {
		// The sale's shards: its snapshot sums every key of a split stock.
		inst, err := j.Lockers.Get(sl.Strategy, lockstrategy.Options{StockShards: sl.StockShards})
		if err != nil {
			continue
		}
		st, ok := lockstrategy.As[Store](inst)
		if !ok {
			continue
		}
		r, err := Check(ctx, j.DB, st, j.SaleKey(sl.ID), sl.ID)
		if err != nil {
			continue
		}
		if r.Drift != 0 && r.Drift != sl.Drift {
			j.Log.Warn("stock drift: Redis and the database disagree", "sale", sl.ID, "drift", r.Drift,
				"store_stock", r.StoreStock, "db_stock", r.DBStock, "in_flight", r.InFlight)
		}
		_ = store.SaveDrift(ctx, sl.ID, r)
		if j.OnDrift != nil {
			j.OnDrift(sl.ID, r.Drift)
		}
	}
}
