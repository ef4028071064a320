package agent

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// An agent's report counts a 202 (a unit taken, its order queued) with the
// orders and apart, never as an error.
func TestReportCountsAcceptedWithOrders(t *testing.T) {
	rec := load.NewRecorder()
	now := time.Now()
	for i, a := range []shopapi.Answer{{Kind: shopapi.KindOrder, Layer: "database"}, {Kind: shopapi.KindAccepted, Layer: "queue", Ticket: "ot_1_x"},
		{Kind: shopapi.KindAccepted, Layer: "queue", Ticket: "ot_1_y"}, {Kind: shopapi.KindSoldOut, Layer: "store"}} {
		rec.Record(i, a, time.Millisecond, now, now)
	}
	r := snapshotReport("a1", rec, time.Second, true)
	if r.Requests != 4 || r.Orders != 3 || r.Accepted != 2 || r.SoldOut != 1 || len(r.Errors) != 0 {
		t.Fatalf("report %+v: want 4 requests, 3 orders of which 2 accepted, 1 sold out, no errors", r)
	}
}
