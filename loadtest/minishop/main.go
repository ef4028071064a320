// Command minishop is the yardstick of make bench's selling phase: the
// smallest Go shop that sells a stock without overselling, as flash-sale
// tutorials write it. One POST /sales/{id}/orders {"user_id"} is one
// transaction: UPDATE stock = stock - 1 WHERE stock > 0, then INSERT the
// order; 201, or 409 when no unit was left. No lock, no guards, no
// per-user limit, no idempotency, no records for a timeline: what our
// db-conditional does beyond this is what the comparison measures.
//
// A sale created with "apart": true sells as the peer shops most tutorials
// copy do (CocaineCong/Go-SecKill's purchase functions among them): the
// same UPDATE and INSERT, each committed on its own (autocommit). It is not
// atomic: a crash between the two loses a unit. It is the floor the
// comparison puts our one transaction beside.
//
//	minishop -addr 127.0.0.1:18700 -mysql-dsn 'root@tcp(127.0.0.1:13306)/seckill_mini?parseTime=true'
//	POST /sales {"stock": 1000, "apart": false} -> {"id": N}
//	GET  /sales/{id} -> {"id", "stock", "sold", "first_order_at", "last_order_at"}
//
// Its tables (minishop_sales, minishop_orders) are created if missing.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18700", "host:port to serve on")
	dsn := flag.String("mysql-dsn", "root@tcp(127.0.0.1:13306)/seckill?parseTime=true", "MariaDB DSN (go-sql-driver format)")
	flag.Parse()
	db, err := sql.Open("mysql", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(64)
	db.SetMaxIdleConns(64)
	if err := createTables(db); err != nil {
		fmt.Fprintln(os.Stderr, "minishop:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sales", func(w http.ResponseWriter, r *http.Request) { createSale(db, w, r) })
	mux.HandleFunc("GET /sales/{id}", func(w http.ResponseWriter, r *http.Request) { getSale(db, w, r) })
	mux.HandleFunc("POST /sales/{id}/orders", func(w http.ResponseWriter, r *http.Request) { order(db, w, r) })
	log.Fatal(http.ListenAndServe(*addr, mux))
}

func createTables(db *sql.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS minishop_sales (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, stock BIGINT NOT NULL)`,
		`ALTER TABLE minishop_sales ADD COLUMN IF NOT EXISTS apart BOOLEAN NOT NULL DEFAULT FALSE`,
		`CREATE TABLE IF NOT EXISTS minishop_orders (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY,
			sale_id BIGINT UNSIGNED NOT NULL, user_id VARCHAR(64) NOT NULL, created_at DATETIME(6) NOT NULL, KEY (sale_id))`,
	} {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// order is the whole purchase: one conditional decrement, one insert.
func order(db *sql.DB, w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	var body struct {
		UserID string `json:"user_id"`
	}
	if err != nil || json.NewDecoder(r.Body).Decode(&body) != nil || body.UserID == "" {
		http.Error(w, `{"error":"bad_request"}`, http.StatusBadRequest)
		return
	}
	apart, err := saleApart(r.Context(), db, id)
	if err != nil {
		http.Error(w, `{"error":"not_found"}`, http.StatusNotFound)
		return
	}
	var ins sql.Result
	var sold bool
	if apart {
		ins, sold, err = sellApart(r.Context(), db, id, body.UserID)
	} else {
		ins, sold, err = sellInOneTx(r.Context(), db, id, body.UserID)
	}
	if err != nil {
		http.Error(w, `{"error":"db"}`, http.StatusServiceUnavailable)
		return
	}
	if !sold {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, `{"error":"sold_out"}`)
		return
	}
	oid, _ := ins.LastInsertId()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"order_id":%d}`, oid)
}

// aparts caches each sale's apart flag (sale id -> bool): read once, so
// that an order costs its two statements only.
var aparts sync.Map

// saleApart says whether sale id sells apart.
func saleApart(ctx context.Context, db *sql.DB, id uint64) (bool, error) {
	if v, ok := aparts.Load(id); ok {
		return v.(bool), nil
	}
	var apart bool
	if err := db.QueryRowContext(ctx, `SELECT apart FROM minishop_sales WHERE id = ?`, id).Scan(&apart); err != nil {
		return false, err
	}
	aparts.Store(id, apart)
	return apart, nil
}

// sellInOneTx: the conditional decrement and the INSERT in one transaction.
func sellInOneTx(ctx context.Context, db *sql.DB, id uint64, user string) (sql.Result, bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	res, err := tx.ExecContext(ctx, `UPDATE minishop_sales SET stock = stock - 1 WHERE id = ? AND stock > 0`, id)
	if err != nil {
		return nil, false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, false, nil
	}
	ins, err := tx.ExecContext(ctx, `INSERT INTO minishop_orders (sale_id, user_id, created_at) VALUES (?, ?, NOW(6))`, id, user)
	if err == nil {
		err = tx.Commit()
	}
	return ins, err == nil, err
}

// sellApart: the same two statements, each committed alone (the peer's way;
// not atomic).
func sellApart(ctx context.Context, db *sql.DB, id uint64, user string) (sql.Result, bool, error) {
	res, err := db.ExecContext(ctx, `UPDATE minishop_sales SET stock = stock - 1 WHERE id = ? AND stock > 0`, id)
	if err != nil {
		return nil, false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, false, nil
	}
	ins, err := db.ExecContext(ctx, `INSERT INTO minishop_orders (sale_id, user_id, created_at) VALUES (?, ?, NOW(6))`, id, user)
	return ins, err == nil, err
}

func createSale(db *sql.DB, w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stock int64 `json:"stock"`
		Apart bool  `json:"apart"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || body.Stock < 1 {
		http.Error(w, `{"error":"stock"}`, http.StatusBadRequest)
		return
	}
	res, err := db.Exec(`INSERT INTO minishop_sales (stock, apart) VALUES (?, ?)`, body.Stock, body.Apart)
	if err != nil {
		http.Error(w, `{"error":"db"}`, http.StatusServiceUnavailable)
		return
	}
	id, _ := res.LastInsertId()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%d}`, id)
}

// getSale is the sale's truth from its tables: stock, orders, and the first
// and last order's time (the sell-out, measured by the database).
func getSale(db *sql.DB, w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, `{"error":"id"}`, http.StatusBadRequest)
		return
	}
	var out struct {
		ID    uint64     `json:"id"`
		Stock int64      `json:"stock"`
		Sold  int64      `json:"sold"`
		First *time.Time `json:"first_order_at"`
		Last  *time.Time `json:"last_order_at"`
	}
	out.ID = id
	err = db.QueryRow(`SELECT s.stock, COUNT(o.id), MIN(o.created_at), MAX(o.created_at) FROM minishop_sales s
		LEFT JOIN minishop_orders o ON o.sale_id = s.id WHERE s.id = ? GROUP BY s.id`, id).Scan(&out.Stock, &out.Sold, &out.First, &out.Last)
	if err != nil {
		http.Error(w, `{"error":"not_found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
