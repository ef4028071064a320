package metrics

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// freshSale returns a sale id no other test (or earlier run) has rows for.
func freshSale(t *testing.T, db *gorm.DB) uint64 {
	t.Helper()
	id := rand.Uint64N(1<<62) + 1
	if err := db.Exec("DELETE FROM sale_stats WHERE sale_id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
	return id
}

// observe records n attempts of one shape. Grants are 1 ms apart; fifo
// says whether buyers were served in the order they arrived.
func observe(r *LiveRecorder, saleID uint64, n int, outcome string, total time.Duration, locked, fifo bool) {
	t0 := time.Now()
	for i := range n {
		o := order.Observation{SaleID: saleID, Strategy: "mutex", Outcome: outcome, Total: total, Retries: 1}
		rank := i
		if !fifo {
			rank = n - i
		}
		o.Arrived = t0.Add(time.Duration(rank) * time.Microsecond)
		if locked {
			o.Acquired = t0.Add(time.Second + time.Duration(i)*time.Millisecond)
			o.LockWait, o.Critical = total/2, total/4
		}
		r.ObservePlace(o)
	}
}

func near(got, want float64) bool { return math.Abs(got-want) <= want*0.01 }

// Two replicas publish; LoadMerged merges their histograms (never averages
// percentiles), sums counters and lists both rows.
func TestLoadMergedTwoReplicas(t *testing.T) {
	db := testenv.DB(t, "metrics")
	ctx := context.Background()
	sale := freshSale(t, db)
	a, b := NewLiveRecorder(New(), nil), NewLiveRecorder(nil, nil)
	observe(a, sale, 100, order.OutcomeOK, time.Millisecond, true, true)
	observe(b, sale, 90, order.OutcomeOK, 10*time.Millisecond, true, false)
	observe(b, sale, 10, order.OutcomeLockTimeout, 10*time.Millisecond, false, true)
	if err := a.Publish(ctx, db, "replica-a"); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(ctx, db, "replica-b"); err != nil {
		t.Fatal(err)
	}

	got, err := LoadMerged(ctx, db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if got.SaleID != sale || got.Requests != 200 || got.Outcomes["ok"] != 190 || got.Outcomes["lock_timeout"] != 10 || got.Retries != 200 {
		t.Fatalf("counters: %+v", got)
	}
	// 100 at 1 ms and 100 at 10 ms: the merged median is 1 ms and p99 is
	// 10 ms; averaging the replicas' p99s would have said 5.5 ms.
	if !near(got.Latency.P50, 1) || !near(got.Latency.P99, 10) || !near(got.Latency.Max, 10) {
		t.Fatalf("latency %+v, want p50 1 ms, p99 and max 10 ms", got.Latency)
	}
	// The mean comes from the merged histogram too: (100*1 + 100*10)/200.
	if !near(got.Latency.Mean, 5.5) {
		t.Fatalf("latency mean %v, want 5.5 ms", got.Latency.Mean)
	}
	// Lock wait counts only the 190 attempts that held the lock.
	if !near(got.LockWait.P50, 0.5) || !near(got.LockWait.P99, 5) || !near(got.Critical.P99, 2.5) {
		t.Fatalf("lock wait %+v critical %+v", got.LockWait, got.Critical)
	}
	// A: 99 adjacent pairs in order; B: 89 pairs all inverted.
	if want := 1 - 89.0/(99+89); math.Abs(got.Fairness-want) > 1e-9 {
		t.Fatalf("fairness %v, want %v", got.Fairness, want)
	}
	if len(got.Replicas) != 2 {
		t.Fatalf("replicas %+v, want 2", got.Replicas)
	}
	ra, rb := got.Replicas[0], got.Replicas[1]
	if ra.ReplicaID != "replica-a" || ra.Requests != 100 || ra.Orders != 100 || ra.Errors != 0 || !near(ra.P99, 1) {
		t.Errorf("replica a: %+v", ra)
	}
	if rb.ReplicaID != "replica-b" || rb.Requests != 100 || rb.Orders != 90 || rb.Errors != 10 || !near(rb.P99, 10) {
		t.Errorf("replica b: %+v", rb)
	}
	newest := ra.UpdatedAt
	if rb.UpdatedAt.After(newest) {
		newest = rb.UpdatedAt
	}
	if ra.UpdatedAt.IsZero() || !got.UpdatedAt.Equal(newest) {
		t.Errorf("updated_at %v, replicas %v and %v", got.UpdatedAt, ra.UpdatedAt, rb.UpdatedAt)
	}
	// A replica that had nothing new to publish leaves its row as it was.
	if err := a.Publish(ctx, db, "replica-a"); err != nil {
		t.Fatal(err)
	}
	again, _ := LoadMerged(ctx, db, sale)
	if !again.Replicas[0].UpdatedAt.Equal(ra.UpdatedAt) {
		t.Errorf("an idle publish rewrote the row")
	}
}

// A sale nobody published for: zero figures, no error.
func TestLoadMergedEmpty(t *testing.T) {
	db := testenv.DB(t, "metrics")
	got, err := LoadMerged(context.Background(), db, freshSale(t, db))
	if err != nil || got.Requests != 0 || len(got.Replicas) != 0 || got.Outcomes == nil || got.Fairness != 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// Rows are cumulative: a restarted replica (same id) and a sale dropped
// from memory after a minute idle both continue from the stored row.
func TestPublishContinuesStoredRow(t *testing.T) {
	db := testenv.DB(t, "metrics")
	ctx := context.Background()
	sale := freshSale(t, db)
	first := NewLiveRecorder(nil, nil)
	observe(first, sale, 100, order.OutcomeOK, time.Millisecond, true, true)
	if err := first.Publish(ctx, db, "r1"); err != nil {
		t.Fatal(err)
	}

	restarted := NewLiveRecorder(nil, nil)
	observe(restarted, sale, 50, order.OutcomeOK, time.Millisecond, true, true)
	if err := restarted.Publish(ctx, db, "r1"); err != nil {
		t.Fatal(err)
	}
	requireRequests(t, db, sale, 150)

	// A minute passes with no orders: the sale is dropped from memory.
	clock := time.Now().Add(2 * idleAfter)
	restarted.now = func() time.Time { return clock }
	if err := restarted.Publish(ctx, db, "r1"); err != nil {
		t.Fatal(err)
	}
	if n := len(restarted.snapshot()); n != 0 {
		t.Fatalf("%d sales in memory after a minute idle, want 0", n)
	}
	observe(restarted, sale, 25, order.OutcomeSoldOut, time.Millisecond, false, true)
	if err := restarted.Publish(ctx, db, "r1"); err != nil {
		t.Fatal(err)
	}
	got := requireRequests(t, db, sale, 175)
	if got.Outcomes["sold_out"] != 25 || got.Outcomes["ok"] != 150 {
		t.Fatalf("outcomes %v", got.Outcomes)
	}
}

func requireRequests(t *testing.T, db *gorm.DB, sale uint64, want int64) SaleLive {
	t.Helper()
	got, err := LoadMerged(context.Background(), db, sale)
	if err != nil {
		t.Fatal(err)
	}
	if got.Requests != want || len(got.Replicas) != 1 {
		t.Fatalf("requests %d over %d rows, want %d over 1", got.Requests, len(got.Replicas), want)
	}
	return got
}

// Run publishes once more when its ctx ends (graceful stop), and
// observations racing with publishes are neither lost nor counted twice.
func TestRunFinalPublishUnderLoad(t *testing.T) {
	db := testenv.DB(t, "metrics")
	sale := freshSale(t, db)
	r := NewLiveRecorder(New(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, db, "runner") }()

	var wg sync.WaitGroup
	const workers, each = 8, 500
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				observe(r, sale, 1, order.OutcomeOK, time.Duration(i+1)*time.Microsecond, true, true)
				if i%100 == 0 {
					_ = r.Publish(context.Background(), db, "runner") // races with Run's ticks on purpose
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("final publish: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its ctx ended")
	}
	requireRequests(t, db, sale, workers*each)
}
