package order

import (
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LockOptions are the strategy options of sale: its TTL, its watchdog
// switch, redlock's queue switch and its stock shards (each strategy's Normalize drops what it does not use). Everything
// that gets a sale's strategy (the order flow, loading a Reserver's stock) uses it,
// so that a sale always meets the same instance.
func LockOptions(sale inventory.Sale) lockstrategy.Options {
	return lockstrategy.Options{TTL: time.Duration(sale.TTLMS) * time.Millisecond, NoRenewal: !sale.Watchdog,
		NoQueue: sale.NoQueue, StockShards: sale.StockShards}
}
