package sale

import (
	"strings"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Combining's bounds and defaults: a batch of at most MaxCombineBatch
// buyers (one multi-row INSERT), gathered for at most MaxCombineWaitUS.
const (
	DefaultCombineBatch  = 100
	MaxCombineBatch      = 1000
	DefaultCombineWaitUS = 500
	MaxCombineWaitUS     = 100_000
)

// combining fills in the sale's combining: off unless asked; on, only for
// a strategy that takes a lock, in order_mode sync (a batch is what waits
// for one lock); the batch and the wait are bounded, with defaults. The
// batch options without combine on are refused rather than ignored.
func combining(sale *inventory.Sale, st lockstrategy.Strategy, spec Spec) error {
	on := spec.Combine != nil && *spec.Combine
	if !on {
		if spec.CombineMaxBatch != nil {
			return FieldErrorf("combine_max_batch", "combine_max_batch needs combine: true")
		}
		if spec.CombineMaxWaitUS != nil {
			return FieldErrorf("combine_max_wait_us", "combine_max_wait_us needs combine: true")
		}
		return nil
	}
	if st.Kind() != lockstrategy.KindLock {
		return FieldErrorf("combine", "combine needs a strategy that takes a lock (%s): it sells the orders waiting for one lock as a batch, and %s takes none",
			strings.Join(lockstrategy.Locking(), ", "), st.Name)
	}
	if sale.OrderMode != inventory.OrderSync {
		return FieldErrorf("combine", "combine needs order_mode %s: in order_mode %s the queue already batches the orders", inventory.OrderSync, sale.OrderMode)
	}
	var err error
	if sale.CombineMaxBatch, err = IntIn("combine_max_batch", spec.CombineMaxBatch, DefaultCombineBatch, 1, MaxCombineBatch); err != nil {
		return err
	}
	if sale.CombineMaxWaitUS, err = IntIn("combine_max_wait_us", spec.CombineMaxWaitUS, DefaultCombineWaitUS, 0, MaxCombineWaitUS); err != nil {
		return err
	}
	sale.Combine = true
	return nil
}

// LenientCombine is a combine switch for strategy that Validate never
// refuses: on only where the strategy takes a lock and the mode is sync,
// else nil (off). A run over several strategies asks for combining this
// way.
func LenientCombine(strategy, mode string, combine bool) *bool {
	st, err := lockstrategy.Lookup(strategy)
	if !combine || err != nil || st.Kind() != lockstrategy.KindLock || mode == inventory.OrderAsync {
		return nil
	}
	return &combine
}
