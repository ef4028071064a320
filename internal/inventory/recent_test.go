package inventory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// RecentInvariants counts as View does: an oversold sale, one whose stock
// lost an update, a sound one; expired reservations are not sold.
func TestRecentInvariants(t *testing.T) {
	db := testenv.DB(t, "inventory")
	ctx := context.Background()
	mk := func(initial, stock int64, orders int, expired int) uint64 {
		s := inventory.Sale{Name: "truth", Strategy: "redis", InitialStock: initial, Stock: stock, Watchdog: true,
			OpensAt: time.Now(), OrderMode: inventory.OrderSync}
		if err := db.Create(&s).Error; err != nil {
			t.Fatal(err)
		}
		for i := range orders + expired {
			st := inventory.StatusPaid
			if i >= orders {
				st = inventory.StatusExpired
			}
			o := inventory.Order{SaleID: s.ID, UserID: fmt.Sprintf("u%d-%d", s.ID, i), ReplicaID: "r", Status: st}
			if err := db.Create(&o).Error; err != nil {
				t.Fatal(err)
			}
		}
		return s.ID
	}
	sound := mk(3, 1, 2, 1)    // 2 sold, 2 taken off
	lost := mk(3, 2, 2, 0)     // 2 sold, 1 taken off: one lost update
	oversold := mk(2, 0, 3, 0) // 3 sold of 2: oversold 1, lost 1
	got, err := inventory.NewStore(db).RecentInvariants(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][2]int64{sound: {0, 0}, lost: {0, 1}, oversold: {1, 1}}
	if len(got) != 3 {
		t.Fatalf("got %d sales, want the newest 3: %+v", len(got), got)
	}
	for _, g := range got {
		w, ok := want[g.SaleID]
		if !ok {
			t.Fatalf("sale %d is not among the newest 3", g.SaleID)
		}
		if g.Oversold != w[0] || g.LostUpdates != w[1] || g.Strategy != "redis" || !g.Watchdog {
			t.Errorf("sale %d: %+v, want oversold %d lost %d", g.SaleID, g, w[0], w[1])
		}
	}
}
