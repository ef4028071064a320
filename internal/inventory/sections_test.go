package inventory_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestViolationsCountsOverlapsOnly: sections that touch are fine; each one
// that begins before an earlier one ended is one violation, across replicas.
func TestViolationsCountsOverlapsOnly(t *testing.T) {
	db := testenv.DB(t, "inventory")
	store := inventory.NewStore(db)
	ctx := context.Background()
	sale := inventory.Sale{Name: "v", Strategy: "none", InitialStock: 1}
	if err := store.CreateSale(ctx, &sale); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Truncate(time.Second)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	log := inventory.NewSectionLog(db, testLogger())
	for _, s := range []struct {
		replica    string
		enter, out int
	}{
		{"r1", 0, 10}, {"r2", 10, 20}, // touching: no overlap
		{"r1", 15, 40}, // starts inside [10,20]
		{"r2", 30, 35}, // inside [15,40]
		{"r1", 40, 50}, // touches 40: fine
	} {
		log.Record(inventory.Section{SaleID: sale.ID, ReplicaID: s.replica, EnterAt: at(s.enter), ExitAt: at(s.out)})
	}
	log.Close()
	n, err := store.Violations(ctx, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("violations = %d, want 2", n)
	}
}

// TestMigrateIsIdempotent: a second run applies nothing.
func TestMigrateIsIdempotent(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "inventory")
	applied, err := inventory.Migrate(context.Background(), dsn, testLogger())
	if err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, err %v", applied, err)
	}
}
