package inventory

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/buyer"
)

// Split stock (库存分段). A sale's stock is the sum of its shards: the
// rows of sale_stock_shards where the stock was split in the database
// (SplitStock, db-conditional with stock_shards > 1: then sales.stock is
// 0, and restocks and expired reservations land in shard 0), plus
// sales.stock. A sale of one shard has no rows: its stock is sales.stock,
// exactly as before the split. Every read of a sale's stock
// goes through stockSum or sumShards, the one place that knows it.

// MaxStockShards bounds a sale's stock_shards.
const MaxStockShards = 64

// stockSum is the SQL of the stock of the sale aliased s: sales.stock plus
// its shards' rows.
const stockSum = "(s.stock + COALESCE((SELECT SUM(k.stock) FROM sale_stock_shards k WHERE k.sale_id = s.id), 0))"

// ShareOf is the units of shard i when stock is split over n shards, as
// evenly as possible: the remainder one each on the first shards.
func ShareOf(stock int64, n, i int) int64 {
	share := stock / int64(n)
	if int64(i) < stock%int64(n) {
		share++
	}
	return share
}

// SplitStock moves the stock of a new sale, inside the transaction tx that
// created it, from sales.stock into sale.StockShards rows (ShareOf each).
// A sale of one shard is left as it is.
func SplitStock(ctx context.Context, tx *gorm.DB, sale Sale) error {
	if sale.StockShards <= 1 {
		return nil
	}
	rows := make([]ShardFigure, sale.StockShards)
	for i := range rows {
		rows[i] = ShardFigure{SaleID: sale.ID, Shard: i, Stock: ShareOf(sale.InitialStock, sale.StockShards, i)}
	}
	db := tx.WithContext(ctx)
	if err := db.Create(&rows).Error; err != nil {
		return err
	}
	return db.Exec("UPDATE sales SET stock = 0 WHERE id = ?", sale.ID).Error
}

// ShardFigure is one shard of a split sale: its stock, the units it sold,
// and the buyers whose home shard was empty who took their unit here
// (moved on: the cost of the split at the end of the sale).
type ShardFigure struct {
	SaleID  uint64 `gorm:"primaryKey" json:"-"`
	Shard   int    `gorm:"primaryKey" json:"shard"`
	Stock   int64  `json:"stock"`
	Sold    int64  `json:"sold"`
	MovedIn int64  `gorm:"column:moved_in" json:"moved_in"`
}

// TableName is ShardFigure's table.
func (ShardFigure) TableName() string { return "sale_stock_shards" }

// ShardsOf reads a split sale's shards in order (none for a sale kept in
// one row).
func ShardsOf(ctx context.Context, db *gorm.DB, saleID uint64) ([]ShardFigure, error) {
	var rows []ShardFigure
	err := db.WithContext(ctx).Where("sale_id = ?", saleID).Order("shard").Find(&rows).Error
	return rows, err
}

// TakeUnit takes one unit of sale's stock for buyer userID with the
// conditional decrement (stock = stock - 1 WHERE stock > 0): on sales.stock
// for a sale of one shard (DecrementIfAvailable); for a split one, on the
// buyer's home shard, and when that is empty on the next shard with stock,
// in the same transaction (walkShards). ErrSoldOut only when every shard
// was empty at one instant.
//
// tx must run in READ COMMITTED for a split sale: there the home shard's
// UPDATE that matched nothing (empty) keeps no lock on it, and the walk's
// count of the committed stocks sees the latest commits (ErrShardsHeld).
func TakeUnit(ctx context.Context, tx *gorm.DB, sale Sale, userID string) error {
	n := sale.StockShards
	if n <= 1 {
		return DecrementIfAvailable(ctx, tx, sale.ID)
	}
	home := buyer.HomeShard(userID, n)
	took, err := decrementShard(ctx, tx, sale.ID, home, false)
	if err != nil || took {
		return err
	}
	return walkShards(ctx, tx, sale.ID, home, true)
}

// TakeUnitAndCommit is TakeUnit as the last statement of tx, where the
// order's INSERT came first: for a sale of one shard DecrementAndCommit
// (the decrement and the COMMIT in one round trip, tx over after it); for
// a split one, the home shard's decrement and the COMMIT in one round trip
// too, and, when the home is empty, the walk in the still open tx, which
// the caller then commits.
func TakeUnitAndCommit(ctx context.Context, tx *gorm.DB, sale Sale, userID string) error {
	n := sale.StockShards
	if n <= 1 {
		return DecrementAndCommit(ctx, tx, sale.ID)
	}
	home := buyer.HomeShard(userID, n)
	took, err := updateAndCommit(ctx, tx,
		"UPDATE sale_stock_shards SET stock = stock - 1, sold = sold + 1 WHERE sale_id = ? AND shard = ? AND stock > 0", "",
		sale.ID, home)
	switch {
	case errors.Is(err, errNoCompound):
		return TakeUnit(ctx, tx, sale, userID)
	case err != nil || took:
		return err
	}
	return walkShards(ctx, tx, sale.ID, home, false)
}

// decrementShard is the conditional decrement of one shard; took false:
// it was empty. movedIn counts the unit as sold to a buyer from elsewhere.
func decrementShard(ctx context.Context, tx *gorm.DB, saleID uint64, shard int, movedIn bool) (took bool, err error) {
	in := 0
	if movedIn {
		in = 1
	}
	res := tx.WithContext(ctx).Exec(`UPDATE sale_stock_shards SET stock = stock - 1, sold = sold + 1, moved_in = moved_in + ?
		WHERE sale_id = ? AND shard = ? AND stock > 0`, in, saleID, shard)
	return res.RowsAffected == 1, res.Error
}

// shardRetry is how long a buyer whose walk found every shard with stock
// held by others waits before it walks again; maxWalks bounds its walks.
const (
	shardRetry = time.Millisecond
	maxWalks   = 2000
)

// ErrShardsHeld: a walk found, maxWalks times, every shard with stock held
// by other buyers. In READ COMMITTED their commits or rollbacks end that
// within milliseconds; in REPEATABLE READ the committed stocks it counts
// would be its first snapshot's, never 0, and the walk would never end
// (each walk taking row locks until the server runs out of lock memory:
// seen once, MariaDB aborted). The bound makes such a misuse an error.
var ErrShardsHeld = errors.New("inventory: every shard with stock stayed held by others")

// walkShards takes a unit for a buyer whose home shard was empty. With
// holdHome (TakeUnit: the stock write before the order's INSERT, whose
// per-user limit is a count after it) it holds the home shard first (FOR
// UPDATE): a buyer's orders, and the buyers of one empty home, move on one
// at a time, so two orders of one buyer still meet on a row (the limit's
// locking count then sees the first). Without (TakeUnitAndCommit: the
// INSERT came first, the limit of 1 is its unique key) the movers go side
// by side. It then takes the first shard after home, in turn, that has stock and
// that no one holds (FOR UPDATE SKIP LOCKED: never waiting while it holds
// a row, so walkers cannot deadlock). When every shard with stock is held
// by others, it reads the committed stocks: all 0 is sold out; else those
// holders are about to commit or roll back, and it walks again.
func walkShards(ctx context.Context, tx *gorm.DB, saleID uint64, home int, holdHome bool) error {
	db := tx.WithContext(ctx)
	if holdHome {
		if err := db.Exec("SELECT shard FROM sale_stock_shards WHERE sale_id = ? AND shard = ? FOR UPDATE", saleID, home).Error; err != nil {
			return err
		}
	}
	for walk := 0; walk < maxWalks; walk++ {
		for _, after := range []string{"shard > ?", "shard < ?"} { // the shards after home, then those before it
			var shard []int
			if err := db.Raw("SELECT shard FROM sale_stock_shards WHERE sale_id = ? AND "+after+
				" AND stock > 0 ORDER BY shard LIMIT 1 FOR UPDATE SKIP LOCKED", saleID, home).Scan(&shard).Error; err != nil {
				return err
			}
			if len(shard) == 1 {
				if took, err := decrementShard(ctx, tx, saleID, shard[0], true); err != nil || took {
					return err
				}
			}
		}
		var left int64
		if err := db.Raw("SELECT COUNT(*) FROM sale_stock_shards WHERE sale_id = ? AND stock > 0", saleID).Scan(&left).Error; err != nil {
			return err
		}
		if left == 0 {
			return ErrSoldOut
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(shardRetry):
		}
	}
	return ErrShardsHeld
}

// landUnits puts units given back (a restock, an expired reservation)
// into sale saleID's stock inside tx: into its shard 0 where the sale is
// split (split true), else nowhere (the caller adds them to sales.stock).
func landUnits(ctx context.Context, tx *gorm.DB, saleID uint64, units int64) (split bool, err error) {
	res := tx.WithContext(ctx).Exec("UPDATE sale_stock_shards SET stock = stock + ? WHERE sale_id = ? AND shard = 0", units, saleID)
	return res.RowsAffected == 1, res.Error
}

// sumShards adds, to each of sales split in the database, its shards'
// stock: the sale's stock as stockSum counts it. One query for them all.
func sumShards(ctx context.Context, db *gorm.DB, sales []Sale) error {
	var ids []uint64
	for _, s := range sales {
		if s.StockShards > 1 {
			ids = append(ids, s.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var rows []struct {
		SaleID uint64
		Stock  int64
	}
	if err := db.WithContext(ctx).Raw("SELECT sale_id, SUM(stock) AS stock FROM sale_stock_shards WHERE sale_id IN ? GROUP BY sale_id",
		ids).Scan(&rows).Error; err != nil {
		return err
	}
	sum := make(map[uint64]int64, len(rows))
	for _, r := range rows {
		sum[r.SaleID] = r.Stock
	}
	for i := range sales {
		sales[i].Stock += sum[sales[i].ID]
	}
	return nil
}
