package inventory

import (
	"context"
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
	"gorm.io/gorm"
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
	return sale, err
}

// ListSales returns the newest sales first, at most limit of them.
func (s *Store) ListSales(ctx context.Context, limit int) ([]Sale, error) {
	var sales []Sale
	err := s.db.WithContext(ctx).Order("id DESC").Limit(limit).Find(&sales).Error
	return sales, err
}

// View returns the sale with its stats computed from the database.
func (s *Store) View(ctx context.Context, sale Sale) (SaleView, error) {
	st, err := s.stats(ctx, sale)
	return SaleView{Sale: sale, Stats: st}, err
}

func (s *Store) stats(ctx context.Context, sale Sale) (Stats, error) {
	var st Stats
	db := s.db.WithContext(ctx)
	if err := db.Model(&Order{}).Where("sale_id = ?", sale.ID).Count(&st.Sold).Error; err != nil {
		return st, err
	}
	st.Oversold = max(0, st.Sold-sale.InitialStock)
	// Every order must have taken exactly one unit off the stock.
	if d := st.Sold - (sale.InitialStock - sale.Stock); d != 0 {
		st.LostUpdates = max(d, -d)
	}
	if sale.PerUserLimit > 0 {
		err := db.Raw(`SELECT COUNT(*) FROM (SELECT user_id FROM orders WHERE sale_id = ?
			GROUP BY user_id HAVING COUNT(*) > ?) d`, sale.ID, sale.PerUserLimit).Scan(&st.Duplicates).Error
		if err != nil {
			return st, err
		}
	}
	c, err := sectionlog.LoadCycle(ctx, s.db, sale.ID)
	st.LockCycle, st.Violations = c, c.Overlaps
	return st, err
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
	res := tx.WithContext(ctx).Raw("SELECT stock, version, fence FROM sales WHERE id = ?", saleID).Scan(&row)
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

// InsertOrder inserts o inside tx.
func InsertOrder(ctx context.Context, tx *gorm.DB, o *Order) error {
	o.CreatedAt = time.Now().Truncate(time.Microsecond) // what DATETIME(6) keeps
	return tx.WithContext(ctx).Create(o).Error
}

// AddStock adds units to a sale's stock and initial stock inside tx, and
// moves its version so that a CAS writer that read before retries.
func AddStock(ctx context.Context, tx *gorm.DB, saleID uint64, units int64) error {
	res := tx.WithContext(ctx).Exec("UPDATE sales SET stock = stock + ?, initial_stock = initial_stock + ?, version = version + 1 WHERE id = ?",
		units, units, saleID)
	if res.Error == nil && res.RowsAffected == 0 {
		return ErrSaleNotFound
	}
	return res.Error
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
