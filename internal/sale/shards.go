package sale

import (
	"strings"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// stockShards fills in the sale's stock_shards (库存分段): 1 unless asked,
// at most inventory.MaxStockShards and at most one per unit (a shard with
// nothing to sell would only send its buyers on); above 1 only for a
// strategy that splits the stock (lockstrategy.Splitting), in order_mode
// sync (the queue's script takes its unit from the one stock key).
func stockShards(sale *inventory.Sale, st lockstrategy.Strategy, spec Spec) error {
	n, err := IntIn("stock_shards", spec.StockShards, 1, 1, inventory.MaxStockShards)
	if err != nil {
		return err
	}
	switch {
	case n == 1:
	case !st.SplitsStock:
		return FieldErrorf("stock_shards", "stock_shards above 1 needs a strategy that splits the stock (%s); %s reads the one stock it writes",
			strings.Join(lockstrategy.Splitting(), ", "), st.Name)
	case int64(n) > sale.InitialStock:
		return FieldErrorf("stock_shards", "stock_shards must be at most the stock (%d): every shard needs a unit to sell", sale.InitialStock)
	case sale.OrderMode != inventory.OrderSync:
		return FieldErrorf("stock_shards", "stock_shards above 1 needs order_mode %s: the queue's script takes its unit from the one stock key", inventory.OrderSync)
	}
	sale.StockShards = n
	return nil
}

// LenientStockShards is a stock_shards for strategy that Validate never
// refuses for the strategy: as asked where it splits the stock in sync
// mode, else nil (one shard). A run over several strategies asks for
// shards this way; the bounds are still checked.
func LenientStockShards(strategy string, mode *string, shards int64) *int64 {
	st, err := lockstrategy.Lookup(strategy)
	if err != nil || !st.SplitsStock || (mode != nil && *mode == inventory.OrderAsync) {
		if shards < 1 || shards > inventory.MaxStockShards {
			return &shards // out of bounds: refused, whatever the strategy
		}
		return nil
	}
	return &shards
}
