// Package batchwrite writes rows in the background, in batches, off the
// caller's path: recording a row costs one channel send. It is the one
// writer behind the critical-section log (sectionlog), the order history
// (history) and the timeline's fault and lease events (eventlog).
//
//   - batchwrite.go: Writer (New, Record, Flush, Close) and its Policy:
//     Keep for evidence, Drop for illustration.
//   - run.go: the background loop: a batch is written every FlushEvery or
//     once it holds BatchSize rows; under Keep, a batch the database never
//     received waits and is retried.
//   - gorm.go: Into, the insert of a gorm table.
package batchwrite

import (
	"log/slog"
	"sync"
	"time"
)

// The knobs the writers share.
const (
	QueueSize  = 4096                   // rows queued before Record meets a full queue
	BatchSize  = 500                    // a batch this large is written at once
	FlushEvery = 100 * time.Millisecond // a smaller batch waits at most this long
	RetryEvery = 500 * time.Millisecond // Keep: spacing of the writes the database did not take
	MaxPending = 100_000                // Keep: rows that wait for the database at most (the newest are kept)
)

// Policy is what a writer does with a row it cannot queue or write.
type Policy int

const (
	// Keep is for evidence, where a lost row could hide a violation: a row
	// that meets a full or closed queue is written at once, in the
	// caller's goroutine; a batch whose insert never reached the database
	// (the connection refused or cut) waits and is retried every
	// RetryEvery, at most MaxPending rows of it. A failure after the
	// insert was sent is logged and the batch dropped: writing it again
	// could record a row twice.
	Keep Policy = iota
	// Drop is for illustration: recording never blocks and never writes in
	// the caller's goroutine. A row that meets a full or closed queue is
	// dropped, and so is a batch that failed (logged as a warning).
	Drop
)

// Writer writes rows T through its insert, in batches, in the background.
type Writer[T any] struct {
	insert func(batch []T) error
	log    *slog.Logger
	what   string
	policy Policy
	ch     chan entry[T]
	done   chan struct{}
	// mu guards closed: a row may be recorded after Close (a test's
	// cleanup, a replica shutting down mid-order); the policy then says
	// what becomes of it, instead of a send on a closed channel.
	mu     sync.RWMutex
	closed bool
}

// entry is a row to write, or (ack set) a request to write all queued
// before it and say so: one channel keeps the order.
type entry[T any] struct {
	row T
	ack chan struct{}
}

// New starts the background writer of rows named what in the log ("critical
// sections"); insert writes one non-empty batch. Close flushes and stops it.
func New[T any](insert func(batch []T) error, log *slog.Logger, what string, policy Policy) *Writer[T] {
	w := &Writer[T]{insert: insert, log: log, what: what, policy: policy,
		ch: make(chan entry[T], QueueSize), done: make(chan struct{})}
	go w.run()
	return w
}

// Record queues row. A full or closed queue writes it at once (Keep) or
// drops it (Drop).
func (w *Writer[T]) Record(row T) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if !w.closed {
		select {
		case w.ch <- entry[T]{row: row}:
			return
		default:
		}
	}
	if w.policy == Keep {
		w.writeNow(row)
	}
}

// writeNow writes row in the caller's goroutine (the queue is closed or
// full).
func (w *Writer[T]) writeNow(row T) {
	if err := w.insert([]T{row}); err != nil {
		w.log.Error("recording "+w.what, "n", 1, "err", err)
	}
}

// Flush returns once every row recorded before it is written, or once the
// database failed to take them (under Keep they are retried later).
func (w *Writer[T]) Flush() {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return // Close wrote everything queued
	}
	ack := make(chan struct{})
	w.ch <- entry[T]{ack: ack}
	<-ack
}

// Close writes what is queued and stops the writer. It may be called again.
func (w *Writer[T]) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
	<-w.done
}
