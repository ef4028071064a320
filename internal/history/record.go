// Package history records every order request a sale's order flow answered
// (the order_history table: call, return, outcome) and checks the record for
// linearizability with porcupine: could the answers have come, one at a
// time, from a stock that hands out one unit while any is left?
package history

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/batchwrite"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// Outcomes of an order request, as the check reads them.
const (
	OK      = "ok"       // an order was made (OrderID set)
	SoldOut = "sold_out" // the answer was: nothing left
	Refused = "refused"  // a definite no that took nothing (limit, lock timeout, fenced...)
	Unknown = "unknown"  // 5xx, timeout, the buyer gone: may or may not have taken a unit
	// Capped is no answer but a marker: a replica reached PerSaleCap for
	// the sale and recorded no more of it, so the history is incomplete.
	Capped = "capped"
	// Restocked is a marker too: units were added to the sale. The stock
	// an order's write left then no longer follows from the initial stock
	// alone, so the check ignores StockLeft on such a sale.
	Restocked = "restocked"
	// Lost is a marker Load adds, never a row: an order of the sale has no
	// answer in the record (its replica died before writing the batch that
	// held it), so the history is incomplete, as a capped one is.
	Lost = "lost"
)

// AnswerGrace is how old an order must be before Load calls its missing
// answer lost: a live replica writes its answers in batches, a moment after
// the order commits.
const AnswerGrace = 10 * time.Second

// PerSaleCap bounds the rows one replica records per sale, so that a huge
// sale does not fill the database.
const PerSaleCap = 50_000

// Op is one order request from its arrival (CallAt) to its answer
// (ReturnAt). Times are this machine's wall clock.
type Op struct {
	ID        uint64 `gorm:"primaryKey"`
	SaleID    uint64
	ReplicaID string
	CallAt    time.Time
	ReturnAt  time.Time
	Outcome   string
	OrderID   *uint64
	// StockLeft is the stock an ok order's write left, where the order
	// flow knows it (a read-modify-write); nil otherwise.
	StockLeft *int64
}

// TableName is order_history.
func (Op) TableName() string { return "order_history" }

// Log writes ops in the background, in batches, off the order's path (like
// sectionlog.Log): recording costs an order one channel send. None is
// dropped for want of room, and ops wait while the database cannot be
// reached (batchwrite.Keep): a lost ok could hide an oversell.
type Log struct {
	w     *batchwrite.Writer[Op]
	count sync.Map // sale id -> *atomic.Int64: ops this replica recorded
}

// New starts the background writer; Close flushes and stops it.
func New(db *gorm.DB, log *slog.Logger) *Log {
	return &Log{w: batchwrite.New(batchwrite.Into[Op](db), log, "order history", batchwrite.Keep)}
}

// Record queues op, unless this replica already recorded PerSaleCap ops of
// its sale: the one past the cap becomes the Capped marker, the rest are
// dropped. A full or closed queue writes op at once.
func (l *Log) Record(op Op) {
	n, _ := l.count.LoadOrStore(op.SaleID, new(atomic.Int64))
	switch c := n.(*atomic.Int64).Add(1); {
	case c == PerSaleCap+1:
		op.Outcome, op.OrderID = Capped, nil
	case c > PerSaleCap+1:
		return
	}
	l.w.Record(op)
}

// Flush returns once every op recorded before it is written, or once the
// database failed to take them (they are retried).
func (l *Log) Flush() { l.w.Flush() }

// Close writes what is queued and stops the writer.
func (l *Log) Close() { l.w.Close() }

// Load reads sale saleID's recorded ops in call order, followed by one Lost
// marker per answer the record misses: an order older than AnswerGrace with
// no ok answer, beyond what the unknown answers (each of which may be one
// of them: a queued order, a buyer gone) can explain; and a unit a dead
// replica took and the reconciliation gave back (an abandoned ticket: a
// take that was never answered, undone later).
func Load(ctx context.Context, db *gorm.DB, saleID uint64) ([]Op, error) {
	var ops []Op
	err := db.WithContext(ctx).Where("sale_id = ?", saleID).Order("call_at, id").Find(&ops).Error
	if err != nil {
		return nil, err
	}
	lost, err := lostAnswers(ctx, db, saleID, ops)
	return append(ops, lost...), err
}

// lostAnswers is the Lost markers of Load.
func lostAnswers(ctx context.Context, db *gorm.DB, saleID uint64, ops []Op) ([]Op, error) {
	orders, err := inventory.OrdersMadeBefore(ctx, db, saleID, time.Now().Add(-AnswerGrace))
	if err != nil {
		return nil, err
	}
	answered := map[uint64]bool{}
	unknown := 0
	for _, op := range ops {
		switch {
		case op.Outcome == OK && op.OrderID != nil:
			answered[*op.OrderID] = true
		case op.Outcome == Unknown:
			unknown++
		}
	}
	abandoned, err := inventory.FailedAt(ctx, db, saleID, inventory.ReasonAbandoned)
	if err != nil {
		return nil, err
	}
	var lost []Op
	for _, at := range abandoned {
		lost = append(lost, Op{SaleID: saleID, CallAt: at, ReturnAt: at, Outcome: Lost})
	}
	for _, o := range orders {
		if answered[o.ID] {
			continue
		}
		if unknown > 0 {
			unknown--
			continue
		}
		id := o.ID
		lost = append(lost, Op{SaleID: saleID, CallAt: o.CreatedAt, ReturnAt: o.CreatedAt, Outcome: Lost, OrderID: &id})
	}
	return lost, nil
}
