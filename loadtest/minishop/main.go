// Command minishop is the yardstick of make bench's selling phase: the
// smallest Go shop that sells a stock without overselling, as flash-sale
// tutorials write it. One POST /sales/{id}/orders {"user_id"} is one
// transaction: UPDATE stock = stock - 1 WHERE stock > 0, then INSERT the
// order; 201, or 409 when no unit was left. No lock, no guards, no
// per-user limit, no idempotency, no records for a timeline: what our
// db-conditional does beyond this is what the comparison measures.
//
//	minishop -addr 127.0.0.1:18700 -mysql-dsn 'root@tcp(127.0.0.1:13306)/seckill_mini?parseTime=true'
//	POST /sales {"stock": 1000} -> {"id": N}
//	GET  /sales/{id} -> {"id", "stock", "sold", "first_order_at", "last_order_at"}
//
// Its tables (minishop_sales, minishop_orders) are created if missing.
package main

import (
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
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
	tx, err := db.BeginTx(r.Context(), nil)
	if err != nil {
		http.Error(w, `{"error":"db"}`, http.StatusServiceUnavailable)
		return
	}
	defer tx.Rollback() //nolint:errcheck // after Commit, a no-op
	res, err := tx.Exec(`UPDATE minishop_sales SET stock = stock - 1 WHERE id = ? AND stock > 0`, id)
	if err != nil {
		http.Error(w, `{"error":"db"}`, http.StatusServiceUnavailable)
		return
	}
	if n, _ := res.RowsAffected(); n == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprint(w, `{"error":"sold_out"}`)
		return
	}
	ins, err := tx.Exec(`INSERT INTO minishop_orders (sale_id, user_id, created_at) VALUES (?, ?, NOW(6))`, id, body.UserID)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		http.Error(w, `{"error":"db"}`, http.StatusServiceUnavailable)
		return
	}
	oid, _ := ins.LastInsertId()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"order_id":%d}`, oid)
}

func createSale(db *sql.DB, w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stock int64 `json:"stock"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || body.Stock < 1 {
		http.Error(w, `{"error":"stock"}`, http.StatusBadRequest)
		return
	}
	res, err := db.Exec(`INSERT INTO minishop_sales (stock) VALUES (?)`, body.Stock)
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
