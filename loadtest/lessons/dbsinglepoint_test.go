package lessons

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// An order sent while every replica was cut and answered 201 after the
// cut ended (a loaded machine: the shop dialled again once the database
// was back, and committed) is an order the buyer got: the round counts it,
// or the database's count (one more) reads as an order nobody was told of.
// Interleaving: probe i sees every replica cut, sends; the cut ends; the
// order commits, 201; the probe then sees the cut over and stops.
func TestProbeOutageCountsAnOrderAnsweredAfterTheCut(t *testing.T) {
	var cutOver atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/faults":
			left := 1000
			if cutOver.Load() {
				left = 0
			}
			fmt.Fprintf(w, `{"db_cut_ms_left":%d}`, left)
		case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
			cutOver.Store(true) // the cut ends while this order is inside the shop
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"order_id":7}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	sc := &ScenarioRun{C: shopapi.NewClient(4, 5*time.Second, ""), Targets: []string{srv.URL}}
	defer sc.C.Close()
	during := map[string]int{}
	late, err := sc.probeOutage(context.Background(), 1, during)
	if err != nil {
		t.Fatal(err)
	}
	if late != 1 || len(during) != 0 {
		t.Errorf("late 201s %d, during %v; want 1 late 201 and nothing counted as during the outage", late, during)
	}
}
