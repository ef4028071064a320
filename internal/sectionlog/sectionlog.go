// Package sectionlog records every critical section a replica ran (the
// critical_sections table) and counts the overlaps between them: the
// evidence that a lock did, or did not, keep buyers apart.
package sectionlog

import (
	"context"
	"log/slog"
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
}

// TableName is critical_sections.
func (Section) TableName() string { return "critical_sections" }

// Log writes sections in the background, in batches, so that recording
// costs the critical section nothing but two clock reads. Violations are
// therefore up to one flush interval (100 ms) behind.
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
		l.flush([]Section{s})
		return
	}
	select {
	case l.ch <- sectionEntry{s: s}:
	default:
		l.flush([]Section{s})
	}
}

// Flush returns once every section recorded before it is written.
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
	for {
		select {
		case e, ok := <-l.ch:
			if !ok {
				l.flush(batch)
				return
			}
			if e.ack != nil {
				l.flush(batch)
				batch = nil
				close(e.ack)
				continue
			}
			if batch = append(batch, e.s); len(batch) >= 500 {
				l.flush(batch)
				batch = nil
			}
		case <-tick.C:
			l.flush(batch)
			batch = nil
		}
	}
}

func (l *Log) flush(batch []Section) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.db.WithContext(ctx).CreateInBatches(batch, 500).Error; err != nil {
		l.log.Error("recording critical sections", "n", len(batch), "err", err)
	}
}

// Violations counts the sale's sections that began before an earlier-begun
// section had ended: each is an overlap the lock should have prevented
// (Cycle.Overlaps: one pass in entry order with a running maximum of exits).
func Violations(ctx context.Context, db *gorm.DB, saleID uint64) (int64, error) {
	c, err := LoadCycle(ctx, db, saleID)
	return c.Overlaps, err
}
