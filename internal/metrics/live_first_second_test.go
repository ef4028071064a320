package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
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
