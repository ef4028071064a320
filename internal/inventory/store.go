package inventory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Store reads and writes sales and orders.
type Store struct {
	db *gorm.DB
}

// NewStore returns a Store over db.
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// DB returns the underlying handle, for transactions that span the store.
func (s *Store) DB() *gorm.DB { return s.db }

// CreateSale inserts sale with stock = initial_stock and returns it with its id.
func (s *Store) CreateSale(ctx context.Context, sale *Sale) error {
	sale.Stock = sale.InitialStock
	sale.StockShards = max(sale.StockShards, 1)
	if sale.Status == "" {
		sale.Status = "open"
	}
	return s.db.WithContext(ctx).Create(sale).Error
}

// GetSale returns the sale with id, or ErrSaleNotFound.
func (s *Store) GetSale(ctx context.Context, id uint64) (Sale, error) {
	var sale Sale
	err := s.db.WithContext(ctx).Take(&sale, id).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return sale, ErrSaleNotFound
	}
	if err != nil {
		return sale, err
	}
	one := []Sale{sale}
	err = sumShards(ctx, s.db, one)
	return one[0], err
}

// ListSales returns the newest sales first, at most limit of them.
func (s *Store) ListSales(ctx context.Context, limit int) ([]Sale, error) {
	var sales []Sale
	if err := s.db.WithContext(ctx).Order("id DESC").Limit(limit).Find(&sales).Error; err != nil {
		return nil, err
	}
	return sales, sumShards(ctx, s.db, sales)
}

// View returns the sale with its stats computed from the database.
func (s *Store) View(ctx context.Context, sale Sale) (SaleView, error) {
	st, err := s.stats(ctx, sale)
	v := NewSaleView(sale, st)
	if err == nil && sale.StockShards > 1 {
		v.Shards, err = ShardsOf(ctx, s.db, sale.ID)
	}
	return v, err
}

func (s *Store) stats(ctx context.Context, sale Sale) (Stats, error) {
	var sold, dups int64
	db := s.db.WithContext(ctx)
	// An expired reservation gave its unit back: it is not sold.
	if err := db.Model(&Order{}).Where("sale_id = ? AND status <> ?", sale.ID, StatusExpired).Count(&sold).Error; err != nil {
		return Stats{}, err
	}
	if sale.PerUserLimit > 0 {
		err := db.Raw(`SELECT COUNT(*) FROM (SELECT user_id FROM orders WHERE sale_id = ?
			GROUP BY user_id HAVING COUNT(*) > ?) d`, sale.ID, sale.PerUserLimit).Scan(&dups).Error
		if err != nil {
			return Stats{}, err
		}
	}
	c, err := sectionlog.LoadCycle(ctx, s.db, sale.ID)
	return statsOf(sale, sold, dups, c), err
}

// statsOf derives a sale's stats from what the database counted: its
// orders sold (not expired), the users over its per-user limit, and its
// recorded sections.
func statsOf(sale Sale, sold, duplicates int64, c sectionlog.Cycle) Stats {
	st := Stats{Sold: sold, Duplicates: duplicates, LockCycle: c, Violations: c.Overlaps}
	st.Oversold = max(0, st.Sold-sale.InitialStock)
	// Every order must have taken exactly one unit off the stock.
	if d := st.Sold - (sale.InitialStock - sale.Stock); d != 0 {
		st.LostUpdates = max(d, -d)
	}
	return st
}

// StockRow is what the critical section reads of a sale.
type StockRow struct {
	Stock   int64
	Version int64
	Fence   uint64
}

// ReadStock reads the stock inside tx (a plain consistent read: the lock, not
// the database, is what is supposed to make it current).
func ReadStock(ctx context.Context, tx *gorm.DB, saleID uint64) (StockRow, error) {
	var row StockRow
	res := tx.WithContext(ctx).Raw("SELECT "+stockSum+" AS stock, s.version, s.fence FROM sales s WHERE s.id = ?", saleID).Scan(&row)
	if res.Error == nil && res.RowsAffected == 0 {
		return row, ErrSaleNotFound
	}
	return row, res.Error
}

// WriteStock is the deliberate read-modify-write: stock = newStock, whatever
// happened since the read. Without a working lock this loses updates.
func WriteStock(ctx context.Context, tx *gorm.DB, saleID uint64, newStock int64) error {
	return tx.WithContext(ctx).Exec("UPDATE sales SET stock = ?, updated_at = NOW(6) WHERE id = ?", newStock, saleID).Error
}

// ClaimFence records token as the sale's fence if it is newer than the
// fence; else ErrFenced. A fenced section claims before it reads: checking
// the token only at the write would let a stale holder's write land between
// a newer holder's read and write (a lost update fencing was meant to stop).
func ClaimFence(ctx context.Context, db *gorm.DB, saleID uint64, token uint64) error {
	res := db.WithContext(ctx).Exec("UPDATE sales SET fence = ? WHERE id = ? AND fence < ?", token, saleID, token)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrFenced
	}
	return res.Error
}

// WriteStockFenced writes stock = newStock only if the sale's fence is still
// token, the one this holder claimed (ClaimFence) before its read; else
// ErrFenced: a newer holder has claimed since, and may have read already.
func WriteStockFenced(ctx context.Context, tx *gorm.DB, saleID uint64, newStock int64, token uint64) error {
	res := tx.WithContext(ctx).Exec("UPDATE sales SET stock = ?, updated_at = NOW(6) WHERE id = ? AND fence = ?",
		newStock, saleID, token)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrFenced
	}
	return res.Error
}

// WriteStockCAS writes stock = newStock and bumps the version only if the
// version is still the one read; else ErrVersionConflict.
func WriteStockCAS(ctx context.Context, tx *gorm.DB, saleID uint64, newStock, version int64) error {
	res := tx.WithContext(ctx).Exec(
		"UPDATE sales SET stock = ?, version = version + 1, updated_at = NOW(6) WHERE id = ? AND version = ?",
		newStock, saleID, version)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrVersionConflict
	}
	return res.Error
}

// DecrementIfAvailable is the lock-free conditional write: the database
// serialises stock = stock - 1 WHERE stock > 0; zero rows means sold out.
func DecrementIfAvailable(ctx context.Context, tx *gorm.DB, saleID uint64) error {
	res := tx.WithContext(ctx).Exec("UPDATE sales SET stock = stock - 1, updated_at = NOW(6) WHERE id = ? AND stock > 0", saleID)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrSoldOut
	}
	return res.Error
}

// CountUserOrders counts the orders user already has in the sale.
func CountUserOrders(ctx context.Context, tx *gorm.DB, saleID uint64, userID string) (int64, error) {
	var n int64
	err := tx.WithContext(ctx).Model(&Order{}).Where("sale_id = ? AND user_id = ?", saleID, userID).Count(&n).Error
	return n, err
}

// CountUserOrdersLatest counts user's orders in the sale with a locking read,
// which sees the latest committed rows where a plain read in tx sees only
// tx's snapshot (REPEATABLE READ).
func CountUserOrdersLatest(ctx context.Context, tx *gorm.DB, saleID uint64, userID string) (int64, error) {
	var n int64
	err := tx.WithContext(ctx).Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND user_id = ? LOCK IN SHARE MODE",
		saleID, userID).Scan(&n).Error
	return n, err
}

// ErrLimitOneTaken: the INSERT of an order that carries the limit-of-1 key
// (WithLimitOneKey) met the buyer's earlier order in the sale on the unique
// key orders_limit_one. Only the statement failed: tx goes on.
var ErrLimitOneTaken = errors.New("inventory: the buyer already has the sale's one order (unique key orders_limit_one)")

// WithLimitOneKey makes o's INSERT the per-user limit of 1: the buyer in
// limit_one_user_id, unique per sale.
func WithLimitOneKey(o *Order) { o.LimitOneUserID = &o.UserID }

// InsertOrder inserts o inside tx; ErrLimitOneTaken when o carries the
// limit-of-1 key and the buyer has an order in the sale.
func InsertOrder(ctx context.Context, tx *gorm.DB, o *Order) error {
	o.CreatedAt = time.Now().Truncate(time.Microsecond) // what DATETIME(6) keeps
	err := tx.WithContext(ctx).Create(o).Error
	if dberr.IsDuplicateOn(err, limitOneIndex) {
		return fmt.Errorf("%w: %w", ErrLimitOneTaken, err)
	}
	return err
}

// limitOneIndex is the unique key (sale_id, limit_one_user_id) of orders.
const limitOneIndex = "orders_limit_one"

// InsertOrders inserts orders inside tx in one multi-row INSERT; each gets
// its id (consecutive: the server hands out one auto-increment range per
// statement).
//
// The ids are the driver's last insert id plus one per row, which holds
// where the server hands a multi-row INSERT consecutive ids
// (innodb_autoinc_lock_mode 0 or 1; MariaDB's default is 1). Under mode 2
// (MySQL 8's default) another transaction's rows may interleave: the rows
// read back would not be ours, and the insert fails with
// ErrIDsNotConsecutive rather than answer buyers with other buyers' ids.
func InsertOrders(ctx context.Context, tx *gorm.DB, orders []Order) error {
	if len(orders) == 0 {
		return nil
	}
	now := time.Now().Truncate(time.Microsecond)
	for i := range orders {
		orders[i].CreatedAt = now
	}
	if err := tx.WithContext(ctx).Create(&orders).Error; err != nil || len(orders) == 1 {
		return err
	}
	return checkConsecutive(ctx, tx, orders)
}

// ErrIDsNotConsecutive: a multi-row INSERT's rows did not get consecutive
// ids (innodb_autoinc_lock_mode 2); set the mode to 1 for batches.
var ErrIDsNotConsecutive = errors.New("inventory: a multi-row insert did not get consecutive ids (innodb_autoinc_lock_mode 2?); batches need mode 1")

// checkConsecutive reads back the rows in orders' id range, in one query,
// and checks they are orders' own (sale and user at each id).
func checkConsecutive(ctx context.Context, tx *gorm.DB, orders []Order) error {
	var rows []struct {
		ID     uint64
		SaleID uint64
		UserID string
	}
	first, last := orders[0].ID, orders[len(orders)-1].ID
	if err := tx.WithContext(ctx).Raw("SELECT id, sale_id, user_id FROM orders WHERE id BETWEEN ? AND ? ORDER BY id",
		first, last).Scan(&rows).Error; err != nil {
		return err
	}
	if len(rows) != len(orders) {
		return ErrIDsNotConsecutive
	}
	for i, r := range rows {
		if o := orders[i]; r.ID != o.ID || r.SaleID != o.SaleID || r.UserID != o.UserID {
			return ErrIDsNotConsecutive
		}
	}
	return nil
}

// DecrementBy is the conditional write of a batch: stock = stock - n where
// at least n units are left; zero rows means fewer than n were (ErrSoldOut).
func DecrementBy(ctx context.Context, tx *gorm.DB, saleID uint64, n int64) error {
	res := tx.WithContext(ctx).Exec("UPDATE sales SET stock = stock - ?, updated_at = NOW(6) WHERE id = ? AND stock >= ?", n, saleID, n)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrSoldOut
	}
	return res.Error
}

// CountUsersOrders counts, in one query, the orders each of users already
// has in the sale; a user without one is absent from the map.
func CountUsersOrders(ctx context.Context, tx *gorm.DB, saleID uint64, users []string) (map[string]int64, error) {
	counts := make(map[string]int64, len(users))
	if len(users) == 0 {
		return counts, nil
	}
	var rows []struct {
		UserID string
		N      int64
	}
	err := tx.WithContext(ctx).Raw("SELECT user_id, COUNT(*) AS n FROM orders WHERE sale_id = ? AND user_id IN ? GROUP BY user_id",
		saleID, users).Scan(&rows).Error
	for _, r := range rows {
		counts[r.UserID] = r.N
	}
	return counts, err
}

// KeysUsed is the (user id, idempotency key) pairs among keys that already
// made an order of the sale, in one query.
func KeysUsed(ctx context.Context, tx *gorm.DB, saleID uint64, keys []string) ([][2]string, error) {
	var rows []struct {
		UserID         string
		IdempotencyKey string
	}
	err := tx.WithContext(ctx).Raw("SELECT user_id, idempotency_key FROM orders WHERE sale_id = ? AND idempotency_key IN ?",
		saleID, keys).Scan(&rows).Error
	pairs := make([][2]string, len(rows))
	for i, r := range rows {
		pairs[i] = [2]string{r.UserID, r.IdempotencyKey}
	}
	return pairs, err
}

// AddStock adds units to a sale's stock (its shard 0 where it is split)
// and initial stock inside tx, and moves its version so that a CAS writer
// that read before retries.
func AddStock(ctx context.Context, tx *gorm.DB, saleID uint64, units int64) error {
	split, err := landUnits(ctx, tx, saleID, units)
	if err != nil {
		return err
	}
	toSale := units
	if split {
		toSale = 0
	}
	res := tx.WithContext(ctx).Exec("UPDATE sales SET stock = stock + ?, initial_stock = initial_stock + ?, version = version + 1 WHERE id = ?",
		toSale, units, saleID)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrSaleNotFound
	}
	return res.Error
}

// Queue reads an async sale's figures kept in the database (Accepted and
// InFlight are Redis's, filled in by the caller).
func (s *Store) Queue(ctx context.Context, saleID uint64) (QueueFigures, error) {
	var q QueueFigures
	db := s.db.WithContext(ctx)
	var row struct {
		N         int64
		FirstAcc  *time.Time
		FirstConf *time.Time
		LastConf  *time.Time
		FailedN   int64
		FailedAcc *time.Time
	}
	err := db.Raw(`SELECT COUNT(*) AS n, MIN(accepted_at) AS first_acc, MIN(created_at) AS first_conf, MAX(created_at) AS last_conf,
		(SELECT COUNT(*) FROM ticket_failures WHERE sale_id = ?) AS failed_n,
		(SELECT MIN(accepted_at) FROM ticket_failures WHERE sale_id = ?) AS failed_acc
		FROM orders WHERE sale_id = ? AND order_ticket IS NOT NULL`, saleID, saleID, saleID).Scan(&row).Error
	if err != nil {
		return q, err
	}
	q.Confirmed, q.Failed, q.FirstConfirmedAt, q.LastConfirmedAt = row.N, row.FailedN, row.FirstConf, row.LastConf
	q.FirstAcceptedAt = row.FirstAcc
	if row.FailedAcc != nil && (q.FirstAcceptedAt == nil || row.FailedAcc.Before(*q.FirstAcceptedAt)) {
		q.FirstAcceptedAt = row.FailedAcc
	}
	if q.Confirmed == 0 {
		return q, nil
	}
	// 202 to confirmed: from Redis taking the unit to the order's commit.
	var p struct{ P50, P99 float64 }
	err = db.Raw(`SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY d) OVER () AS p50,
		PERCENTILE_CONT(0.99) WITHIN GROUP (ORDER BY d) OVER () AS p99
		FROM (SELECT TIMESTAMPDIFF(MICROSECOND, accepted_at, created_at) AS d FROM orders
		      WHERE sale_id = ? AND order_ticket IS NOT NULL AND accepted_at IS NOT NULL) x LIMIT 1`, saleID).Scan(&p).Error
	q.ConfirmP50MS, q.ConfirmP99MS = p.P50/1000, p.P99/1000
	return q, err
}

// Reservations counts a sale's orders by status.
func (s *Store) Reservations(ctx context.Context, saleID uint64) (ReservationFigures, error) {
	var r ReservationFigures
	err := s.db.WithContext(ctx).Raw(`SELECT COALESCE(SUM(status = ?), 0) AS reserved, COALESCE(SUM(status = ?), 0) AS paid,
		COALESCE(SUM(status = ?), 0) AS expired, COALESCE(SUM(status = ? AND unit_returned), 0) AS returned
		FROM orders WHERE sale_id = ?`, StatusReserved, StatusPaid, StatusExpired, StatusExpired, saleID).Scan(&r).Error
	return r, err
}

// SaveDrift records a reconciliation's result on the sale.
func (s *Store) SaveDrift(ctx context.Context, saleID uint64, r Reconciliation) error {
	return s.db.WithContext(ctx).Exec("UPDATE sales SET drift = ?, reconciled_at = ? WHERE id = ?", r.Drift, r.CheckedAt, saleID).Error
}

// StockAndReturned reads, in one snapshot, a sale's stock and the orders
// whose units went back to it (expired): what a lost stock is rebuilt from.
func (s *Store) StockAndReturned(ctx context.Context, saleID uint64) (stock int64, returned []uint64, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		row, err := ReadStock(ctx, tx, saleID)
		if err != nil {
			return err
		}
		stock = row.Stock
		return tx.Raw("SELECT id FROM orders WHERE sale_id = ? AND status = ?", saleID, StatusExpired).Scan(&returned).Error
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	return stock, returned, err
}

// KeyedOrder finds the order an idempotency key made: found false when
// there is none.
func (s *Store) KeyedOrder(ctx context.Context, saleID uint64, userID, key string) (Order, bool, error) {
	var o Order
	err := s.db.WithContext(ctx).Where("sale_id = ? AND user_id = ? AND idempotency_key = ?", saleID, userID, key).Take(&o).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return o, false, nil
	}
	return o, err == nil, err
}

// CountFenced records one write rejected for a stale fencing token. It runs
// after the rejected transaction rolled back, outside the critical section.
func (s *Store) CountFenced(ctx context.Context, saleID uint64) error {
	return s.db.WithContext(ctx).Exec("UPDATE sales SET fenced_writes = fenced_writes + 1 WHERE id = ?", saleID).Error
}

// DecrementAndCommit is the conditional decrement as the last statement of
// tx, sent with tx's end in one round trip: a MariaDB compound statement
// that decrements stock = stock - 1 WHERE stock > 0 and then COMMITs, or
// ROLLBACKs when no unit was left (ErrSoldOut). The sale's row is then held
// for the UPDATE inside the server only, not across a round trip to the
// client and back for the COMMIT: what a statement in autocommit costs,
// with the order's INSERT still in the same transaction (AliSQL's
// COMMIT_ON_SUCCESS hint does the same for a hot row).
//
// tx is over when it returns nil or ErrSoldOut: its COMMIT or ROLLBACK that
// follows is a no-op on the server, and nothing may be sent in tx after
// it. A server without compound statements (MySQL) answers a syntax error,
// which changes nothing: then the plain decrement runs in tx, and every
// later call does so at once.
func DecrementAndCommit(ctx context.Context, tx *gorm.DB, saleID uint64) error {
	took, err := updateAndCommit(ctx, tx, "UPDATE sales SET stock = stock - 1, updated_at = NOW(6) WHERE id = ? AND stock > 0",
		"ROLLBACK", saleID)
	switch {
	case errors.Is(err, errNoCompound):
		return DecrementIfAvailable(ctx, tx, saleID)
	case err == nil && !took:
		return ErrSoldOut
	}
	return err
}

// updateAndCommit sends update (a statement that changes at most one row)
// and tx's end in one round trip, as a MariaDB compound statement: COMMIT
// when it changed a row (took), else orElse ("ROLLBACK", or "" to leave tx
// open for more statements). errNoCompound: the server has no compound
// statements (MySQL: a syntax error, nothing ran), now or on an earlier
// call; the caller then does the same plainly in tx.
func updateAndCommit(ctx context.Context, tx *gorm.DB, update, orElse string, args ...any) (took bool, err error) {
	if noCompoundCommit.Load() {
		return false, errNoCompound
	}
	if orElse != "" {
		orElse += ";"
	}
	var n int
	err = tx.WithContext(ctx).Raw("BEGIN NOT ATOMIC "+update+"; IF ROW_COUNT() = 1 THEN COMMIT; SELECT 1; ELSE "+orElse+
		" SELECT 0; END IF; END", args...).Row().Scan(&n)
	if dberr.IsSyntax(err) {
		noCompoundCommit.Store(true)
		return false, errNoCompound
	}
	return n == 1, err
}

// errNoCompound: updateAndCommit could not run (no compound statements).
var errNoCompound = errors.New("inventory: the server has no compound statements")

// noCompoundCommit: the server refused updateAndCommit's compound
// statement once (not MariaDB); every later call goes the plain way.
var noCompoundCommit atomic.Bool
