package migrations_test

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/migrations"
)

// TestLimitOneKeyIsBuiltOverDuplicates: 0023 applied to a database whose
// orders already hold what an unsafe strategy let through (a buyer's two
// orders in a sale with a limit of 1) builds its unique key anyway: the
// buyer's first order carries the key, the later one keeps NULL, orders of
// a sale with a limit above 1 carry none; a new keyed order of that buyer
// is then refused by the key.
func TestLimitOneKeyIsBuiltOverDuplicates(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "limit_one_migration")
	ctx := context.Background()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The database as it was before 0023.
	for _, q := range []string{
		"DROP INDEX IF EXISTS orders_limit_one ON orders",
		"ALTER TABLE orders DROP COLUMN IF EXISTS limit_one_user_id",
		"DELETE FROM schema_migrations WHERE version = '0023_limit_one_key'",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	sale := func(limit int) int64 {
		res, err := db.ExecContext(ctx, `INSERT INTO sales (name, strategy, initial_stock, stock, per_user_limit, created_at, updated_at, opens_at)
			VALUES ('limit one migration', 'none', 10, 7, ?, NOW(6), NOW(6), NOW(6))`, limit)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	order := func(saleID int64, user string) int64 {
		res, err := db.ExecContext(ctx, `INSERT INTO orders (sale_id, user_id, replica_id, status, created_at)
			VALUES (?, ?, 'old', 'paid', NOW(6))`, saleID, user)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	one, two := sale(1), sale(2)
	bobFirst, bobAgain, ann := order(one, "bob"), order(one, "bob"), order(one, "ann")
	carol1, carol2 := order(two, "carol"), order(two, "carol")

	applied, err := migrations.Apply(ctx, dsn, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("0023 over a buyer's duplicate orders: %v", err)
	}
	if len(applied) != 1 || applied[0] != "0023_limit_one_key" {
		t.Fatalf("applied %v, want [0023_limit_one_key]", applied)
	}
	want := map[int64]sql.NullString{
		bobFirst: {String: "bob", Valid: true}, bobAgain: {}, ann: {String: "ann", Valid: true}, carol1: {}, carol2: {},
	}
	for id, w := range want {
		var got sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT limit_one_user_id FROM orders WHERE id = ?", id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("order %d: limit_one_user_id %v, want %v", id, got, w)
		}
	}
	_, err = db.ExecContext(ctx, `INSERT INTO orders (sale_id, user_id, replica_id, status, created_at, limit_one_user_id)
		VALUES (?, 'bob', 'new', 'paid', NOW(6), 'bob')`, one)
	if err == nil {
		t.Error("a new keyed order of bob in the limit-1 sale was accepted: the key is not unique")
	}
}
