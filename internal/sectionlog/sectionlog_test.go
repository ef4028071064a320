package sectionlog_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestViolationsCountsOverlapsOnly: sections that touch are fine; each one
// that begins before an earlier one ended is one violation, across replicas.
func TestViolationsCountsOverlapsOnly(t *testing.T) {
	db := testenv.DB(t, "sectionlog")
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db}, nil), sale.Spec{Name: new("v"),
		Strategy: new("none"), Stock: new(int64(1))})
	t0 := time.Now().Truncate(time.Second)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	log := sectionlog.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, s := range []struct {
		replica    string
		enter, out int
	}{
		{"r1", 0, 10}, {"r2", 10, 20}, // touching: no overlap
		{"r1", 15, 40}, // starts inside [10,20]
		{"r2", 30, 35}, // inside [15,40]
		{"r1", 40, 50}, // touches 40: fine
	} {
		log.Record(sectionlog.Section{SaleID: sale.ID, ReplicaID: s.replica, EnterAt: at(s.enter), ExitAt: at(s.out)})
	}
	log.Close()
	n, err := sectionlog.Violations(ctx, db, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("violations = %d, want 2", n)
	}
}

// TestRecordAfterClose: a holder that leaves its section after the log
// closed (a replica shutting down mid-order) still gets its section
// written, and neither Record nor Flush panics on the closed queue.
func TestRecordAfterClose(t *testing.T) {
	db := testenv.DB(t, "sectionlog")
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db}, nil), sale.Spec{Name: new("late"),
		Strategy: new("none"), Stock: new(int64(1))})
	log := sectionlog.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t0 := time.Now()
	log.Record(sectionlog.Section{SaleID: sale.ID, ReplicaID: "r1", EnterAt: t0, ExitAt: t0.Add(20 * time.Millisecond)})
	log.Close()
	log.Record(sectionlog.Section{SaleID: sale.ID, ReplicaID: "r2", EnterAt: t0.Add(10 * time.Millisecond), ExitAt: t0.Add(30 * time.Millisecond)})
	log.Flush()
	log.Close()
	n, err := sectionlog.Violations(ctx, db, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("violations = %d, want 1: the section recorded after Close was not written", n)
	}
}

// TestSectionsOutliveADatabaseCut: sections recorded while the replica is
// cut off its database (the cut_db fault) are kept and written once it is
// back, not dropped: they are the overlap evidence of exactly that window
// (a chaos run logged 196 batches lost so).
func TestSectionsOutliveADatabaseCut(t *testing.T) {
	direct := testenv.DB(t, "sectionlog")
	link, dsn, err := faults.NewDBLink(testenv.MySQLDSN(t, "sectionlog"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, err := inventory.Open(ctx, inventory.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inventory.Close(db) })
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: direct}, nil), sale.Spec{Name: new("cut"),
		Strategy: new("none"), Stock: new(int64(1))})
	log := sectionlog.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer log.Close()
	link.Cut(2 * time.Second)
	t0 := time.Now()
	log.Record(sectionlog.Section{SaleID: sale.ID, ReplicaID: "r1", EnterAt: t0, ExitAt: t0.Add(20 * time.Millisecond)})
	log.Record(sectionlog.Section{SaleID: sale.ID, ReplicaID: "r2", EnterAt: t0.Add(10 * time.Millisecond), ExitAt: t0.Add(30 * time.Millisecond)})
	log.Flush() // its write meets the cut
	testenv.WaitFor(t, 10*time.Second, "the cut over", func() bool { return link.Left() == 0 })
	testenv.WaitFor(t, 30*time.Second, "both sections written after the cut", func() bool {
		var n int64
		if err := direct.Model(&sectionlog.Section{}).Where("sale_id = ?", sale.ID).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n == 2
	})
	if v, err := sectionlog.Violations(ctx, direct, sale.ID); err != nil || v != 1 {
		t.Fatalf("violations %d, %v; want the one overlap of the cut window", v, err)
	}
}
