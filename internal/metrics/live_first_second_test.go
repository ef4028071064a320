package metrics

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/salestats"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// The first second counts only the requests that arrived within a second
// of the opening, merged across two replicas and kept across a restart
// (the stored row seeds the recorder again).
func TestFirstSecondWindowMergedAcrossReplicas(t *testing.T) {
	db := testenv.DB(t, "metrics")
	ctx := context.Background()
	sale := freshSale(t, db)
	opening := time.Now().Add(-time.Minute)
	at := func(r *LiveRecorder, after time.Duration, outcome, layer string, total time.Duration) {
		r.ObservePlace(order.Observation{SaleID: sale, Strategy: "redis", Outcome: outcome, Layer: layer,
			Opening: opening, Arrived: opening.Add(after), Total: total})
	}
	a, b := NewLiveRecorder(nil, nil), NewLiveRecorder(nil, nil)
	at(a, -time.Millisecond, "not_open", "opening", time.Millisecond) // before: not in the window
	for range 10 {
		at(a, 10*time.Millisecond, order.OutcomeOK, order.LayerDatabase, 20*time.Millisecond)
	}
	for range 30 {
		at(b, 500*time.Millisecond, order.OutcomeSoldOut, "sold_out_cache", time.Millisecond)
	}
	at(b, time.Second, order.OutcomeSoldOut, "sold_out_cache", time.Millisecond) // the second is over
	for _, p := range []struct {
		r  *LiveRecorder
		id string
	}{{a, "a"}, {b, "b"}} {
		if err := p.r.Publish(ctx, db, p.id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadMerged(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	fs := got.FirstSecond
	if got.Requests != 42 || fs.Requests != 40 || fs.Outcomes[order.OutcomeOK] != 10 || fs.Outcomes[order.OutcomeSoldOut] != 30 ||
		fs.Layers["sold_out_cache"] != 30 || fs.Layers[order.LayerDatabase] != 10 {
		t.Fatalf("first second: %+v (requests %d)", fs, got.Requests)
	}
	if !near(fs.Latency.P50, 1) || !near(fs.Latency.P99, 20) {
		t.Fatalf("first-second latency %+v, want p50 1 ms, p99 20 ms", fs.Latency)
	}

	restarted := NewLiveRecorder(nil, nil) // replica a again: its row seeds it
	at(restarted, 20*time.Millisecond, order.OutcomeSoldOut, order.LayerDatabase, time.Millisecond)
	if err := restarted.Publish(ctx, db, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadMerged(ctx, db, sale); got.FirstSecond.Requests != 41 {
		t.Fatalf("after a restart the first second has %d requests, want 41", got.FirstSecond.Requests)
	}
}

// The first second's answer time is kept split as well as mixed: the
// orders (201 and 202) alone and the sold-out answers alone, merged across
// replicas like the rest. The histograms count whole microseconds from
// 1 µs: a sold-out cache answer of 3 µs reads 0.003 ms, one of 400 ns is
// counted as 1 µs (0.001 ms), never as nothing.
func TestFirstSecondLatencySplitByKind(t *testing.T) {
	db := testenv.DB(t, "metrics")
	ctx := context.Background()
	sale := freshSale(t, db)
	opening := time.Now().Add(-time.Minute)
	at := func(r *LiveRecorder, outcome, layer string, total time.Duration) {
		r.ObservePlace(order.Observation{SaleID: sale, Strategy: "redis", Outcome: outcome, Layer: layer,
			Opening: opening, Arrived: opening.Add(100 * time.Millisecond), Total: total})
	}
	a, b := NewLiveRecorder(nil, nil), NewLiveRecorder(nil, nil)
	for range 10 {
		at(a, order.OutcomeOK, order.LayerLock, 30*time.Millisecond)
	}
	for range 10 {
		at(b, order.OutcomeQueued, order.LayerQueue, 10*time.Millisecond)
	}
	for range 98 {
		at(b, order.OutcomeSoldOut, "sold_out_cache", 3*time.Microsecond)
	}
	at(a, order.OutcomeSoldOut, "sold_out_cache", 400*time.Nanosecond)
	at(a, order.OutcomeSoldOut, order.LayerDatabase, 5*time.Millisecond)
	at(a, order.OutcomeLockTimeout, order.LayerLock, time.Second) // neither an order nor sold out
	for _, p := range []struct {
		r  *LiveRecorder
		id string
	}{{a, "a"}, {b, "b"}} {
		if err := p.r.Publish(ctx, db, p.id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := LoadMerged(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	fs := got.FirstSecond
	if fs.Requests != 121 || fs.OrdersTimed != 20 || fs.SoldOutTimed != 100 {
		t.Fatalf("first second: %d requests, %d orders timed, %d sold-out answers timed; want 121, 20, 100",
			fs.Requests, fs.OrdersTimed, fs.SoldOutTimed)
	}
	if !near(fs.OrdersLatency.P50, 10) || !near(fs.OrdersLatency.P99, 30) {
		t.Fatalf("orders' latency %+v, want p50 10 ms, p99 30 ms", fs.OrdersLatency)
	}
	if so := fs.SoldOutLatency; so.P50 != 0.003 || so.P99 != 0.003 || !near(so.Max, 5) {
		t.Fatalf("sold-out answers' latency %+v, want p50 and p99 0.003 ms, max 5 ms (the database's one)", so)
	}
	if fs.Latency.P50 != 0.003 || !near(fs.Latency.Max, 1000) {
		t.Fatalf("every answer's latency %+v, want p50 0.003 ms (the sold-out cache's: mixed, it hides the orders) and max 1 s", fs.Latency)
	}

	one := NewLiveRecorder(nil, nil) // the clamp: under a microsecond counts as one
	lone := freshSale(t, db)
	one.ObservePlace(order.Observation{SaleID: lone, Strategy: "redis", Outcome: order.OutcomeSoldOut,
		Opening: opening, Arrived: opening, Total: 400 * time.Nanosecond})
	if err := one.Publish(ctx, db, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadMerged(ctx, db, lone); got.FirstSecond.SoldOutLatency.P50 != 0.001 || got.FirstSecond.SoldOutTimed != 1 {
		t.Fatalf("a 400 ns answer: %+v, want 0.001 ms (1 µs, the histogram's floor)", got.FirstSecond)
	}
}

// A replica's row written before the split was kept has no split
// histograms: it still merges, its answers count in the mixed time only,
// and the split says how many answers it holds.
func TestFirstSecondOldPayloadWithoutSplit(t *testing.T) {
	db := testenv.DB(t, "metrics")
	ctx := context.Background()
	sale := freshSale(t, db)
	opening := time.Now().Add(-time.Minute)
	r := NewLiveRecorder(nil, nil)
	for range 5 {
		r.ObservePlace(order.Observation{SaleID: sale, Strategy: "redis", Outcome: order.OutcomeOK, Layer: order.LayerLock,
			Opening: opening, Arrived: opening, Total: 20 * time.Millisecond})
	}
	if err := r.Publish(ctx, db, "new"); err != nil {
		t.Fatal(err)
	}
	body, err := salestats.Own(ctx, db, sale, "new")
	if err != nil || body == nil {
		t.Fatalf("row: %v", err)
	}
	var old map[string]any
	if err := json.Unmarshal(body, &old); err != nil {
		t.Fatal(err)
	}
	first := old["first"].(map[string]any)
	delete(first, "orders_latency_us")
	delete(first, "sold_out_latency_us")
	body, _ = json.Marshal(old)
	if err := salestats.Upsert(ctx, db, sale, "old", body); err != nil {
		t.Fatal(err)
	}
	got, err := LoadMerged(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if fs := got.FirstSecond; fs.Requests != 10 || fs.Outcomes[order.OutcomeOK] != 10 || fs.OrdersTimed != 5 || !near(fs.OrdersLatency.P50, 20) {
		t.Fatalf("first second %+v, want 10 answers, 10 orders of which 5 timed apart, p50 20 ms", fs)
	}
}
