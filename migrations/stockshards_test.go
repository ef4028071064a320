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

// TestStockShardsOnExistingSales: 0024 applied to a database that already
// holds sales (taken back to before it, a sale written the way the shop
// wrote them then) leaves each sale one shard with its stock where it was:
// stock_shards 1, sales.stock unchanged, no shard rows.
func TestStockShardsOnExistingSales(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.MySQLDSN(t, "migrations_shards")
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"DROP TABLE IF EXISTS sale_stock_shards",
		"ALTER TABLE sales DROP COLUMN IF EXISTS stock_shards",
		"DELETE FROM schema_migrations WHERE version = '0024_stock_shards'",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	res, err := db.ExecContext(ctx, `INSERT INTO sales (name, strategy, initial_stock, stock, opens_at, created_at, updated_at)
		VALUES ('before 0024', 'db-conditional', 30, 17, NOW(6), NOW(6), NOW(6))`)
	if err != nil {
		t.Fatal(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}
	applied, err := migrations.Apply(ctx, dsn, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || len(applied) != 1 || applied[0] != "0024_stock_shards" {
		t.Fatalf("applied %v, err %v; want 0024_stock_shards alone", applied, err)
	}
	var shards, stock, rows int64
	if err := db.QueryRowContext(ctx, "SELECT stock_shards, stock, (SELECT COUNT(*) FROM sale_stock_shards WHERE sale_id = s.id) FROM sales s WHERE id = ?",
		id).Scan(&shards, &stock, &rows); err != nil {
		t.Fatal(err)
	}
	if shards != 1 || stock != 17 || rows != 0 {
		t.Errorf("after 0024 the sale has stock_shards %d, stock %d and %d shard rows; want 1, 17, 0", shards, stock, rows)
	}
}
