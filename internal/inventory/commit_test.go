package inventory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestDecrementAndCommitEndsTheTransaction: the decrement and the COMMIT
// go in one round trip. A unit taken commits the order inserted before it;
// no unit left rolls the order back, even if the caller then commits. On a
// server without compound statements (PlainDecrement) the plain decrement
// runs instead, and the caller's COMMIT decides.
func TestDecrementAndCommitEndsTheTransaction(t *testing.T) {
	db := testenv.DB(t, "inventory")
	ctx := context.Background()
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plain=%v", plain), func(t *testing.T) {
			if plain {
				inventory.PlainDecrement(t.Cleanup)
			}
			s := inventory.Sale{Name: "fused commit", Strategy: "db-conditional", InitialStock: 1, Stock: 1, OpensAt: time.Now(),
				OrderMode: inventory.OrderSync}
			if err := db.Create(&s).Error; err != nil {
				t.Fatal(err)
			}
			// sell inserts an order for user, then takes a unit; the caller
			// then ends the transaction with end (nil: COMMIT, else ROLLBACK).
			sell := func(user string, end error) error {
				var took error
				err := db.Transaction(func(tx *gorm.DB) error {
					o := inventory.Order{SaleID: s.ID, UserID: user, ReplicaID: "r", Status: inventory.StatusPaid}
					if err := inventory.InsertOrder(ctx, tx, &o); err != nil {
						return err
					}
					took = inventory.DecrementAndCommit(ctx, tx, s.ID)
					return end
				})
				if err != nil && !errors.Is(err, end) {
					t.Fatalf("%s: the transaction: %v", user, err)
				}
				return took
			}
			if err := sell("first", nil); err != nil {
				t.Fatalf("the one unit: %v", err)
			}
			if err := sell("second", nil); !errors.Is(err, inventory.ErrSoldOut) {
				t.Fatalf("no unit left: %v, want ErrSoldOut", err)
			}
			var orders, stock int64
			db.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ?", s.ID).Scan(&orders)
			db.Raw("SELECT stock FROM sales WHERE id = ?", s.ID).Scan(&stock)
			if plain {
				// The caller committed the sold-out one: only its INSERT, the
				// order the caller must not commit (the order path returns
				// the error, and gorm rolls back).
				if stock != 0 || orders != 2 {
					t.Errorf("plain: stock %d, orders %d; want 0 and 2 (the caller's COMMIT decides)", stock, orders)
				}
				return
			}
			if stock != 0 || orders != 1 {
				t.Errorf("stock %d, orders %d; want 0 and 1: the sold-out order rolled back by the statement itself", stock, orders)
			}
		})
	}
}
