package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestCutDB: a replica whose pool dials through a DBLink holds a sale row
// in a transaction; cut_db closes its connections and refuses new ones, so
// its statements fail as connection failures, and the server rolls its
// transaction back: another replica's write of the row goes through (the
// row lock went with the connection; the transaction never commits). When
// the cut ends the replica's statements work again.
func TestCutDB(t *testing.T) {
	link, dsn, err := faults.NewDBLink(testenv.MySQLDSN(t, "faults"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inventory.Close(db) })
	other := testenv.DB(t, "faults") // another replica: its own path to the database
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: other}, nil), sale.Spec{Name: new("cut"),
		Strategy: new("none"), Stock: new(int64(5))})
	tx := db.Begin()
	if err := tx.Exec("SELECT id FROM sales WHERE id = ? FOR UPDATE", sale.ID).Error; err != nil {
		t.Fatal(err)
	}
	f := faults.New(faults.Config{Enabled: true, DBLink: link}, nil)
	if err := f.CutDB(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if f.DBCutLeft() <= 0 {
		t.Error("DBCutLeft is 0 right after the cut")
	}
	if err := db.Exec("SELECT 1").Error; !dberr.IsConnection(err) {
		t.Errorf("a statement during the cut: %v, want a connection failure", err)
	}
	// The held row is free: the server rolled the cut transaction back.
	if err := other.Exec("SET STATEMENT innodb_lock_wait_timeout = 10 FOR UPDATE sales SET stock = 4 WHERE id = ?", sale.ID).Error; err != nil {
		t.Fatalf("another replica's write of the row the cut transaction held: %v", err)
	}
	if err := tx.Commit().Error; err == nil {
		t.Error("the cut transaction committed")
	}
	testenv.WaitFor(t, 10*time.Second, "the cut over", func() bool { return f.DBCutLeft() == 0 })
	if err := db.Exec("SELECT 1").Error; err != nil {
		t.Errorf("after the cut: %v", err)
	}

	if err := faults.New(faults.Config{Enabled: true}, nil).CutDB(time.Second); !errors.Is(err, faults.ErrNoDBLink) {
		t.Errorf("no link: %v, want ErrNoDBLink", err)
	}
	if err := faults.New(faults.Config{DBLink: link}, nil).CutDB(time.Second); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled: %v, want ErrDisabled", err)
	}
}
