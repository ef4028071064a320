// Package sectionlog records every critical section a replica ran (the
// critical_sections table) and counts the overlaps between them: the
// evidence that a lock did, or did not, keep buyers apart.
package sectionlog

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/batchwrite"
)

// Section is one critical section as a replica saw it: from the moment Lock
// returned to the moment before Unlock. Times are this machine's wall clock.
type Section struct {
	ID        uint64 `gorm:"primaryKey"`
	SaleID    uint64
	ReplicaID string
	Token     uint64
	WaitAt    *time.Time // when its buyer asked for the lock; nil if unknown
	EnterAt   time.Time
	ExitAt    time.Time
	// OrderID is the order the section made; nil when it made none.
	OrderID *uint64
	// Outcome is how the section ended (OutcomeCommitted, ...); "" when
	// unknown (recorded before outcomes were).
	Outcome string `gorm:"default:null"`
	// BatchBuyers and BatchOrders: a section that sold a batch (combining)
	// served BatchBuyers buyers and made BatchOrders orders, OrderID the
	// first of them; both 0 for a section of one order.
	BatchBuyers int
	BatchOrders int
}

// Orders is the orders the section made: its batch's, else 1 with an
// order, 0 without.
func (s Section) Orders() int64 {
	switch {
	case s.BatchBuyers > 0:
		return int64(s.BatchOrders)
	case s.OrderID != nil:
		return 1
	}
	return 0
}

// How a critical section ended, as the timeline shows it.
const (
	OutcomeCommitted    = "committed"     // its order was written
	OutcomeFenced       = "fenced"        // its write carried a stale token: refused, rolled back
	OutcomeRolledBack   = "rolled_back"   // its transaction was rolled back (a conflict, a repeated key, no token)
	OutcomeLockLost     = "lock_lost"     // its lease was known lost before the write: nothing written
	OutcomeGaveUp       = "gave_up"       // its buyer left, or it waited for its own lock (nested) to its bound
	OutcomeSoldOut      = "sold_out"      // it read a stock of zero
	OutcomeLimitReached = "limit_reached" // its buyer already had the sale's per-user limit
	OutcomeError        = "error"         // anything else (the database did not answer, ...)
	OutcomeUnknown      = "unknown"       // recorded without an outcome
)

// TableName is critical_sections.
func (Section) TableName() string { return "critical_sections" }

// Log writes sections in the background, in batches, so that recording
// costs the critical section nothing but two clock reads. Violations are
// therefore up to one flush interval (100 ms) behind, or, while the
// database cannot be reached (cut_db), until it can: the sections wait
// (batchwrite.Keep: a lost section could hide a violation, so none is
// dropped for want of room, and one recorded after Close is written at
// once).
type Log struct {
	w *batchwrite.Writer[Section]
}

// New starts the background writer; Close flushes and stops it.
func New(db *gorm.DB, log *slog.Logger) *Log {
	return &Log{w: batchwrite.New(batchwrite.Into[Section](db), log, "critical sections", batchwrite.Keep)}
}

// Record queues s; if the queue is full or closed it writes s at once.
func (l *Log) Record(s Section) { l.w.Record(s) }

// Flush returns once every section recorded before it is written, or once
// the database failed to take them (they are written later).
func (l *Log) Flush() { l.w.Flush() }

// Close writes what is queued and stops the writer.
func (l *Log) Close() { l.w.Close() }

// Violations counts the sale's sections that began before an earlier-begun
// section had ended: each is an overlap the lock should have prevented
// (Cycle.Overlaps: one pass in entry order with a running maximum of exits).
func Violations(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	c, err := LoadCycle(ctx, db, saleID)
	return c.Overlaps, err
}
