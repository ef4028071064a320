// Package sectionlog records every critical section a replica ran (the
// critical_sections table) and counts the overlaps between them: the
// evidence that a lock did, or did not, keep buyers apart.
package sectionlog

import (
	"context"
	"database/sql/driver"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"gorm.io/gorm"
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
// database cannot be reached (cut_db), until it can: the sections wait.
type Log struct {
	db   *gorm.DB
	log  *slog.Logger
	ch   chan sectionEntry
	done chan struct{}
	// mu guards closed: a holder may leave its section after the service
	// closed (a test's cleanup, a replica shutting down mid-order); its
	// section is then written at once instead of sent on a closed channel.
	mu     sync.RWMutex
	closed bool
}

// sectionEntry is a section to write, or (ack set) a request to write all
// queued before it and say so: one channel keeps the order.
type sectionEntry struct {
	s   Section
	ack chan struct{}
}

// New starts the background writer; Close flushes and stops it.
func New(db *gorm.DB, log *slog.Logger) *Log {
	l := &Log{db: db, log: log, ch: make(chan sectionEntry, 4096), done: make(chan struct{})}
	go l.run()
	return l
}

// Record queues s. If the queue is full it writes s at once rather than drop
// it: a lost section could hide a violation.
func (l *Log) Record(s Section) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		l.writeNow(s)
		return
	}
	select {
	case l.ch <- sectionEntry{s: s}:
	default:
		l.writeNow(s)
	}
}

// writeNow writes s in the caller's goroutine (the queue is closed or full).
func (l *Log) writeNow(s Section) {
	if err := l.flush([]Section{s}); err != nil {
		l.log.Error("recording a critical section", "err", err)
	}
}

// Flush returns once every section recorded before it is written, or once
// the database failed to take them (they are written later: run).
func (l *Log) Flush() {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return // Close wrote everything queued
	}
	ack := make(chan struct{})
	l.ch <- sectionEntry{ack: ack}
	<-ack
}

// Close writes what is queued and stops the writer.
func (l *Log) Close() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.ch)
	}
	l.mu.Unlock()
	<-l.done
}

func (l *Log) run() {
	defer close(l.done)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var batch []Section
	var retryAt time.Time // after a write that could not reach the database
	for {
		select {
		case e, ok := <-l.ch:
			if !ok {
				if batch, _ = l.write(batch, time.Time{}); len(batch) > 0 {
					l.log.Error("critical sections not recorded: the database does not answer", "n", len(batch))
				}
				return
			}
			if e.ack != nil {
				batch, retryAt = l.write(batch, retryAt)
				close(e.ack)
				continue
			}
			if batch = append(batch, e.s); len(batch) >= 500 && time.Now().After(retryAt) {
				batch, retryAt = l.write(batch, retryAt)
			}
		case <-tick.C:
			if time.Now().After(retryAt) {
				batch, retryAt = l.write(batch, retryAt)
			}
		}
		batch = l.bound(batch)
	}
}

// retryEvery spaces the writes of sections the database did not take; at
// most maxPending wait (a long outage keeps the newest).
const (
	retryEvery = 500 * time.Millisecond
	maxPending = 100_000
)

// write inserts batch and returns what is left to write: nothing, or the
// whole batch when the database could not be reached (the insert never left:
// retried later, without the risk of writing a section twice). A failure
// after the insert was sent is logged and the batch dropped: writing it
// again could record a section twice, a false overlap.
// The next attempt is then not before retryEvery (retryAt).
func (l *Log) write(batch []Section, retryAt time.Time) ([]Section, time.Time) {
	err := l.flush(batch)
	if err != nil && notSent(err) {
		return batch, time.Now().Add(retryEvery)
	}
	if err != nil {
		l.log.Error("recording critical sections", "n", len(batch), "err", err)
	}
	return nil, retryAt
}

// bound drops the oldest pending sections beyond maxPending, saying so.
func (l *Log) bound(batch []Section) []Section {
	if over := len(batch) - maxPending; over > 0 {
		l.log.Error("critical sections dropped: the database has not answered for too long", "n", over)
		return batch[over:]
	}
	return batch
}

// notSent: the connection could not be made (refused, cut), so the
// statement never reached the server.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.Is(err, driver.ErrBadConn)
}

func (l *Log) flush(batch []Section) error {
	if len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return l.db.WithContext(ctx).CreateInBatches(batch, 500).Error
}

// Violations counts the sale's sections that began before an earlier-begun
// section had ended: each is an overlap the lock should have prevented
// (Cycle.Overlaps: one pass in entry order with a running maximum of exits).
func Violations(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	c, err := LoadCycle(ctx, db, saleID)
	return c.Overlaps, err
}
