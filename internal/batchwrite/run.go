package batchwrite

import (
	"database/sql/driver"
	"errors"
	"net"
	"time"
)

// run gathers the queued rows into a batch and writes it every FlushEvery,
// once it holds BatchSize rows, at each Flush and at Close. Under Keep a
// batch the database never received stays, and is tried again no sooner
// than RetryEvery later (a Flush or Close tries at once).
func (w *Writer[T]) run() {
	defer close(w.done)
	tick := time.NewTicker(FlushEvery)
	defer tick.Stop()
	var batch []T
	var retryAt time.Time // after a write that could not reach the database
	for {
		select {
		case e, ok := <-w.ch:
			if !ok {
				if batch, _ = w.write(batch, time.Time{}); len(batch) > 0 {
					w.log.Error(w.what+" not recorded: the database does not answer", "n", len(batch))
				}
				return
			}
			if e.ack != nil {
				batch, retryAt = w.write(batch, retryAt)
				close(e.ack)
				continue
			}
			if batch = append(batch, e.row); len(batch) >= BatchSize && time.Now().After(retryAt) {
				batch, retryAt = w.write(batch, retryAt)
			}
		case <-tick.C:
			if time.Now().After(retryAt) {
				batch, retryAt = w.write(batch, retryAt)
			}
		}
		batch = w.bound(batch)
	}
}

// write inserts batch and returns what is left to write, and when to try
// it: nothing, or (Keep) the whole batch when the insert never reached the
// database, not before RetryEvery from now. Any other failure is logged and
// the batch dropped.
func (w *Writer[T]) write(batch []T, retryAt time.Time) ([]T, time.Time) {
	if len(batch) == 0 {
		return nil, retryAt
	}
	err := w.insert(batch)
	switch {
	case err == nil:
	case w.policy == Drop:
		w.log.Warn("recording "+w.what, "n", len(batch), "err", err)
	case notSent(err):
		return batch, time.Now().Add(RetryEvery)
	default:
		w.log.Error("recording "+w.what, "n", len(batch), "err", err)
	}
	return nil, retryAt
}

// bound drops the oldest waiting rows beyond MaxPending, saying so.
func (w *Writer[T]) bound(batch []T) []T {
	if over := len(batch) - MaxPending; over > 0 {
		w.log.Error(w.what+" dropped: the database has not answered for too long", "n", over)
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
