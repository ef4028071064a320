package inventory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// GivenBack counts a sale's units reclaimed as abandoned or stuck, not its
// other failures nor another sale's, and the last return's time.
func TestGivenBackCountsTheReclaimedUnits(t *testing.T) {
	db := testenv.DB(t, "inventory")
	ctx := context.Background()
	sale := inventory.Sale{Name: "given back", Strategy: "redis-lua-stock", InitialStock: 5, OpensAt: time.Now(), OrderMode: inventory.OrderSync}
	if err := db.Create(&sale).Error; err != nil {
		t.Fatal(err)
	}
	if n, last, err := inventory.GivenBack(ctx, db, sale.ID); n != 0 || last != nil || err != nil {
		t.Fatalf("none given back: %d %v %v", n, last, err)
	}
	at := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	rows := []inventory.TicketFailure{
		{SaleID: sale.ID, Reason: inventory.ReasonAbandoned, FailedAt: at},
		{SaleID: sale.ID, Reason: inventory.ReasonStuck, FailedAt: at.Add(2 * time.Second)},
		{SaleID: sale.ID, Reason: "rejected", FailedAt: at.Add(time.Hour)},                // a failure, not a unit given back
		{SaleID: 1 << 62, Reason: inventory.ReasonAbandoned, FailedAt: at.Add(time.Hour)}, // another sale's (no sale of the tests has that id)
	}
	for i := range rows {
		rows[i].OrderTicket = fmt.Sprintf("gb-%d-%d", sale.ID, i)
		rows[i].UserID = fmt.Sprintf("u%d", i)
	}
	if err := db.Create(&rows).Error; err != nil {
		t.Fatal(err)
	}
	n, last, err := inventory.GivenBack(ctx, db, sale.ID)
	if err != nil || n != 2 || last == nil || !last.Equal(at.Add(2*time.Second)) {
		t.Fatalf("%d units, last %v, err %v: want 2, the last at %v", n, last, err, at.Add(2*time.Second))
	}
}
