package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
)

// liveServer is a second API over e's database whose order service records
// into a LiveRecorder, as cmd/shop wires a replica.
func liveServer(e *env, replicaID string) (*Server, *metrics.LiveRecorder) {
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	m := metrics.New()
	live := metrics.NewLiveRecorder(m, log)
	orders := order.NewService(order.Config{ReplicaID: replicaID, Faults: hooksOf(e.lockers)}, e.store, e.lockers, live, log)
	return newServer(Deps{Store: e.store, Orders: orders, Lockers: e.lockers, Metrics: m, Log: log}), live
}

// Orders through two replicas, both publish, and either replica's
// /live shows the merged figures with one row per replica.
func TestSaleLive(t *testing.T) {
	e := newEnv(t)
	sale := e.createSale(t, `{"strategy":"db-pessimistic","stock":5}`)
	if err := e.db.Exec("DELETE FROM sale_stats WHERE sale_id = ?", sale.ID).Error; err != nil {
		t.Fatal(err)
	}
	ra, liveA := liveServer(e, "live-a")
	rb, liveB := liveServer(e, "live-b")
	path := fmt.Sprintf("/api/sales/%d", sale.ID)
	for i := range 8 { // 5 orders, then 3 sold out, alternating replicas
		srv := ra
		if i%2 == 1 {
			srv = rb
		}
		want := http.StatusCreated
		if i >= 5 {
			want = http.StatusConflict
		}
		req := httptest.NewRequest(http.MethodPost, path+"/orders", strings.NewReader(fmt.Sprintf(`{"user_id":"buyer-%d"}`, i)))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Fatalf("order %d: status %d, want %d: %s", i, rec.Code, want, rec.Body)
		}
	}
	ctx := context.Background()
	if err := liveA.Publish(ctx, e.db, "live-a"); err != nil {
		t.Fatal(err)
	}
	if err := liveB.Publish(ctx, e.db, "live-b"); err != nil {
		t.Fatal(err)
	}

	rec := e.get(path + "/live")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var got metrics.SaleLive
	mustJSON(t, rec, &got)
	if got.SaleID != sale.ID || got.Requests != 8 || got.Outcomes["ok"] != 5 || got.Outcomes["sold_out"] != 3 {
		t.Fatalf("live view %+v", got)
	}
	if len(got.Replicas) != 2 || got.Replicas[0].ReplicaID != "live-a" || got.Replicas[1].ReplicaID != "live-b" ||
		got.Replicas[0].Requests != 4 || got.Replicas[1].Requests != 4 ||
		got.Replicas[0].Orders+got.Replicas[1].Orders != 5 {
		t.Fatalf("replicas %+v", got.Replicas)
	}
	if got.Latency.P50 <= 0 || got.Latency.Max < got.Latency.P99 || got.Critical.P50 <= 0 || got.UpdatedAt.IsZero() {
		t.Fatalf("latency %+v critical %+v updated %v", got.Latency, got.Critical, got.UpdatedAt)
	}
}

func TestSaleLiveErrors(t *testing.T) {
	e := newEnv(t)
	wantError(t, e.get("/api/sales/999999999/live"), http.StatusNotFound, "not_found", "")
	wantError(t, e.get("/api/sales/abc/live"), http.StatusBadRequest, "invalid_id", "id")
	// A sale nobody ordered from: zeros, not an error.
	sale := e.createSale(t, `{"strategy":"mutex","stock":1}`)
	rec := e.get(fmt.Sprintf("/api/sales/%d/live", sale.ID))
	var got metrics.SaleLive
	mustJSON(t, rec, &got)
	if rec.Code != http.StatusOK || got.Requests != 0 || got.Replicas == nil || got.Outcomes == nil {
		t.Fatalf("%d %+v", rec.Code, got)
	}
}
