package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The gauges sum each strategy's sales, apart for safe and unsafe ones, and
// a failed read gives no samples rather than a failed scrape.
func TestSaleTruthGauges(t *testing.T) {
	m := New()
	fail := false
	m.SaleTruths(func(context.Context) ([]SaleTruth, error) {
		if fail {
			return nil, errors.New("database down")
		}
		return []SaleTruth{
			{Strategy: "redis", Safe: true, Oversold: 0, LostUpdates: 1},
			{Strategy: "redis", Safe: true, Oversold: 2, LostUpdates: 0},
			{Strategy: "redis", Safe: false, Oversold: 5},
			{Strategy: "none", Safe: false, Oversold: 7, LostUpdates: 3},
		}, nil
	}, nil)
	want := `
# HELP seckill_sale_oversold Units sold beyond the stock, summed over the newest sales, by strategy and whether it was meant to be safe (from the database; every replica reports the same).
# TYPE seckill_sale_oversold gauge
seckill_sale_oversold{safe="false",strategy="none"} 7
seckill_sale_oversold{safe="false",strategy="redis"} 5
seckill_sale_oversold{safe="true",strategy="redis"} 2
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "seckill_sale_oversold"); err != nil {
		t.Error(err)
	}
	wantLost := `
# HELP seckill_sale_lost_updates |sold - (initial stock - stock)| summed over the newest sales, by strategy and whether it was meant to be safe (from the database).
# TYPE seckill_sale_lost_updates gauge
seckill_sale_lost_updates{safe="false",strategy="none"} 3
seckill_sale_lost_updates{safe="false",strategy="redis"} 0
seckill_sale_lost_updates{safe="true",strategy="redis"} 1
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(wantLost), "seckill_sale_lost_updates"); err != nil {
		t.Error(err)
	}
	fail = true
	if n, err := testutil.GatherAndCount(m.Registry(), "seckill_sale_oversold", "seckill_sale_lost_updates"); err != nil || n != 0 {
		t.Errorf("after a failed read: %d samples, err %v; want none and no error", n, err)
	}
}

func TestObserveFault(t *testing.T) {
	m := New()
	m.FaultKinds([]string{"slow_db", "pause_holder", "cut_db"})
	if got := testutil.ToFloat64(m.faults.WithLabelValues("cut_db")); got != 0 {
		t.Errorf("faults{cut_db} = %v before any, want 0", got)
	}
	m.ObserveFault("slow_db")
	m.ObserveFault("slow_db")
	m.ObserveFault("pause_holder")
	if got := testutil.ToFloat64(m.faults.WithLabelValues("slow_db")); got != 2 {
		t.Errorf("faults{slow_db} = %v, want 2", got)
	}
	if n := testutil.CollectAndCount(m.faults, "seckill_faults_injected_total"); n != 3 {
		t.Errorf("fault series = %d, want 3 (every kind, from 0)", n)
	}
}
