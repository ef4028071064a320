package chaos

import (
	"context"
	"fmt"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// chaosPersistWorkMS is the least work of a synchronous order on a stock
// kept in Redis (redis-lua-stock): long enough that a killed replica dies
// inside a persist (between taking the unit in Redis and its order row),
// which is where units used to be lost.
const chaosPersistWorkMS = 200

// checkStuck judges, once the sales have settled, that every unit of c's
// sales is sold (an order row) or still sellable: the units a dead replica
// took must have come back. Sellable is the stock buyers are served from:
// the Redis stock where the strategy keeps one, else the database's. A
// non-durable restart of Redis may lose its last writes (a give-back):
// that drift is repaired first, as the queue's check does, and reported.
func (c *chaosConfig) checkStuck(ctx context.Context, cl *shopapi.Client, store *inventory.Store, targets []string,
	restarts []redisRestartRecord, v *chaosVerdict) error {
	c.mu.Lock()
	sales := append([]uint64(nil), c.sales...)
	c.mu.Unlock()
	for _, id := range sales {
		sale, err := store.GetSale(ctx, id)
		if err != nil {
			return fmt.Errorf("sale %d: %w", id, err)
		}
		sold, err := inventory.CountSold(ctx, store.DB(), id)
		if err != nil {
			return fmt.Errorf("sale %d orders: %w", id, err)
		}
		sellable := sale.Stock
		if c.StoreStock {
			rec, err := settledReconcile(ctx, cl, store, targets, id)
			if err != nil {
				return fmt.Errorf("sale %d reconcile: %w", id, err)
			}
			if (rec.Drift != 0 || rec.StoreStock < 0) && anyLossy(restarts) {
				ans, err := cl.Repair(ctx, targets[0], id)
				if err != nil {
					return fmt.Errorf("sale %d repair: %w", id, err)
				}
				v.Repaired += max(rec.Drift, -rec.Drift)
				rec = ans.After
			}
			if rec.StoreStock >= 0 { // lost: the next order rebuilds it from the database's
				sellable = rec.StoreStock
			}
			if n, err := inventory.CountFailed(ctx, store.DB(), id, inventory.ReasonAbandoned); err == nil {
				v.Reclaimed += n
			}
		}
		if stuck := sale.InitialStock - sold - sellable; stuck > 0 {
			v.Stuck += stuck
			v.StuckSales = append(v.StuckSales, fmt.Sprintf("sale %d: stock %d, sold %d, sellable %d: %d units neither sold nor on sale",
				id, sale.InitialStock, sold, sellable, stuck))
		}
	}
	return nil
}
