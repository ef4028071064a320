package locktest

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// RunDBTPS measures the database's own transactions per second: conns
// connections loop UPDATE sales SET stock = stock - 1 WHERE id = ? AND
// stock > 0 (autocommit: one statement, one transaction) on one hot row,
// as a flash sale's stock write is, for window. It creates the row and
// deletes it after.
func RunDBTPS(db *sql.DB, conns int, window time.Duration) (float64, error) {
	ctx := context.Background()
	res, err := db.ExecContext(ctx, "INSERT INTO sales (name, strategy, initial_stock, stock, opens_at, created_at, updated_at) "+
		"VALUES ('claims: database TPS', 'none', 1000000000, 1000000000, NOW(6), NOW(6), NOW(6))")
	if err != nil {
		return 0, fmt.Errorf("dbtps: row: %w", err)
	}
	id, _ := res.LastInsertId()
	defer db.ExecContext(ctx, "DELETE FROM sales WHERE id = ?", id) //nolint:errcheck // best effort

	wctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	var (
		n     atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	start := time.Now()
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for wctx.Err() == nil {
				if _, err := db.ExecContext(wctx, "UPDATE sales SET stock = stock - 1 WHERE id = ? AND stock > 0", id); err != nil {
					if wctx.Err() == nil {
						mu.Lock()
						first = cmp.Or(first, err)
						mu.Unlock()
					}
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, fmt.Errorf("dbtps: update: %w", first)
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}

// DBFlushSettings says how durable the server makes each commit, which
// bounds its transactions per second more than anything else.
func DBFlushSettings(db *sql.DB) string {
	var flush, binlog string
	if err := db.QueryRow("SELECT @@innodb_flush_log_at_trx_commit, @@log_bin").Scan(&flush, &binlog); err != nil {
		return "flush settings unknown: " + err.Error()
	}
	return fmt.Sprintf("innodb_flush_log_at_trx_commit=%s, log_bin=%s", flush, binlog)
}
