package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestInsertOrdersChecksTheirIDs: a multi-row insert's ids are read back and
// must be the batch's own rows; a batch whose rows are not where its ids say
// (another transaction's rows interleaved, innodb_autoinc_lock_mode 2) is
// refused, not answered with other buyers' ids.
func TestInsertOrdersChecksTheirIDs(t *testing.T) {
	db := testenv.DB(t, "inventory")
	ctx := context.Background()
	s := inventory.Sale{Name: "batch", Strategy: "redis", InitialStock: 5, Stock: 5, Watchdog: true, OpensAt: time.Now(), OrderMode: inventory.OrderSync}
	if err := db.Create(&s).Error; err != nil {
		t.Fatal(err)
	}
	orders := make([]inventory.Order, 3)
	for i := range orders {
		orders[i] = inventory.Order{SaleID: s.ID, UserID: fmt.Sprintf("b%d-%d", s.ID, i), ReplicaID: "r", Status: inventory.StatusPaid}
	}
	if err := inventory.InsertOrders(ctx, db, orders); err != nil {
		t.Fatalf("a batch of 3: %v", err)
	}
	for i := 1; i < len(orders); i++ {
		if orders[i].ID != orders[0].ID+uint64(i) {
			t.Fatalf("ids %d, %d: not consecutive", orders[0].ID, orders[i].ID)
		}
	}
	// As if the server had given the middle row another id: its row is
	// not where the batch's id says.
	swapped := append([]inventory.Order(nil), orders...)
	swapped[1].UserID, swapped[2].UserID = swapped[2].UserID, swapped[1].UserID
	if err := inventory.CheckConsecutive(ctx, db, swapped); !errors.Is(err, inventory.ErrIDsNotConsecutive) {
		t.Fatalf("rows not the batch's own: %v, want ErrIDsNotConsecutive", err)
	}
	if err := inventory.CheckConsecutive(ctx, db, orders); err != nil {
		t.Fatalf("the batch's own rows: %v", err)
	}
}
