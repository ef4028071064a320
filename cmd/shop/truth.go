package main

import (
	"context"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
)

// truthSales is how many of the newest sales /metrics reports the
// invariants of: the ones a class is running, not the whole history.
const truthSales = 50

// saleTruths reads the newest sales' invariants for /metrics
// (seckill_sale_oversold, seckill_sale_lost_updates), each marked safe as
// the load tool judges it: a safe strategy, and its watchdog on when it
// has one.
func saleTruths(store *inventory.Store) func(ctx context.Context) ([]metrics.SaleTruth, error) {
	return func(ctx context.Context) ([]metrics.SaleTruth, error) {
		inv, err := store.RecentInvariants(ctx, truthSales)
		if err != nil {
			return nil, err
		}
		out := make([]metrics.SaleTruth, 0, len(inv))
		for _, s := range inv {
			out = append(out, metrics.SaleTruth{Strategy: s.Strategy, Safe: meantSafe(s),
				Oversold: s.Oversold, LostUpdates: s.LostUpdates})
		}
		return out, nil
	}
}

// meantSafe: the sale's strategy is safe and, if its lease renews itself,
// the sale kept the watchdog on (loadtest run --no-watchdog judges it unsafe).
func meantSafe(s inventory.SaleInvariants) bool {
	st, err := lockstrategy.Lookup(s.Strategy)
	if err != nil {
		return false
	}
	return st.Safe && (!st.Renews || s.Watchdog)
}
