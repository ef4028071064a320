package order

import (
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// LockOptions are the strategy options of sale: its TTL, and its watchdog
// switch for the strategies whose lease renews itself. Everything that gets
// a sale's locker (the order flow, loading a Reserver's stock) uses it, so
// that a sale always meets the same instance.
func LockOptions(sale inventory.Sale) lockstrategy.Options {
	o := lockstrategy.Options{TTL: time.Duration(sale.TTLMS) * time.Millisecond}
	// Only where there is a watchdog to turn off: elsewhere NoRenewal would
	// only build a second, identical instance.
	if st, err := lockstrategy.Lookup(sale.Strategy); err == nil && st.Renews {
		o.NoRenewal = !sale.Watchdog
	}
	return o
}
