package batchwrite_test

import (
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/batchwrite"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// table is a fake insert: the rows it took, and the error it answers while
// failing is set.
type table struct {
	mu      sync.Mutex
	rows    []int
	calls   int
	failing error
}

func (t *table) insert(batch []int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls++
	if t.failing != nil {
		return t.failing
	}
	t.rows = append(t.rows, batch...)
	return nil
}

func (t *table) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failing = err
}

func (t *table) snapshot() (rows []int, calls int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]int(nil), t.rows...), t.calls
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// cut is what the driver answers when the database cannot be dialled.
var cut = &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}

func wantRows(t *testing.T, got []int, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d rows written, want %d", len(got), n)
	}
	for i, r := range got {
		if r != i {
			t.Fatalf("row %d is %d: rows out of order", i, r)
		}
	}
}

func TestFlushWritesEveryRowRecordedBeforeIt(t *testing.T) {
	for _, p := range []batchwrite.Policy{batchwrite.Keep, batchwrite.Drop} {
		var tb table
		w := batchwrite.New(tb.insert, quiet, "rows", p)
		for i := range 1234 {
			w.Record(i)
		}
		w.Flush()
		rows, _ := tb.snapshot()
		wantRows(t, rows, 1234)
		w.Close()
	}
}

func TestCloseWritesWhatIsQueuedAndMayBeCalledAgain(t *testing.T) {
	var tb table
	w := batchwrite.New(tb.insert, quiet, "rows", batchwrite.Keep)
	for i := range 10 {
		w.Record(i)
	}
	w.Close()
	w.Close()
	w.Flush() // returns at once: Close wrote everything
	rows, _ := tb.snapshot()
	wantRows(t, rows, 10)
}

func TestARowAloneIsWrittenWithoutAFlush(t *testing.T) {
	var tb table
	w := batchwrite.New(tb.insert, quiet, "rows", batchwrite.Keep)
	defer w.Close()
	w.Record(0)
	testenv.WaitFor(t, 10*time.Second, "the row written by the tick", func() bool { rows, _ := tb.snapshot(); return len(rows) == 1 })
}

func TestAfterCloseKeepWritesAtOnceAndDropDrops(t *testing.T) {
	for _, c := range []struct {
		policy batchwrite.Policy
		want   int
	}{{batchwrite.Keep, 1}, {batchwrite.Drop, 0}} {
		var tb table
		w := batchwrite.New(tb.insert, quiet, "rows", c.policy)
		w.Close()
		w.Record(0)
		if rows, _ := tb.snapshot(); len(rows) != c.want {
			t.Errorf("policy %d: %d rows written after Close, want %d", c.policy, len(rows), c.want)
		}
	}
}

// TestKeepRetriesABatchTheDatabaseNeverReceived: rows recorded while the
// database cannot be dialled wait, and are written once it answers.
func TestKeepRetriesABatchTheDatabaseNeverReceived(t *testing.T) {
	for _, err := range []error{cut, driver.ErrBadConn} {
		var tb table
		tb.fail(err)
		w := batchwrite.New(tb.insert, quiet, "rows", batchwrite.Keep)
		for i := range 3 {
			w.Record(i)
		}
		w.Flush() // meets the cut; returns all the same
		if _, calls := tb.snapshot(); calls == 0 {
			t.Fatal("Flush returned before trying to write")
		}
		tb.fail(nil)
		testenv.WaitFor(t, 10*time.Second, "the rows written after the cut", func() bool { rows, _ := tb.snapshot(); return len(rows) == 3 })
		w.Close()
		rows, _ := tb.snapshot()
		wantRows(t, rows, 3)
	}
}

// TestAFailureAfterSendingDropsTheBatch: an error that is no cut may have
// written the rows already; they are not written again.
func TestAFailureAfterSendingDropsTheBatch(t *testing.T) {
	for _, p := range []batchwrite.Policy{batchwrite.Keep, batchwrite.Drop} {
		var tb table
		tb.fail(errors.New("duplicate entry"))
		w := batchwrite.New(tb.insert, quiet, "rows", p)
		w.Record(0)
		w.Flush()
		tb.fail(nil)
		w.Record(1)
		w.Close()
		if rows, _ := tb.snapshot(); len(rows) != 1 || rows[0] != 1 {
			t.Errorf("policy %d: rows %v, want only [1]", p, rows)
		}
	}
}

func TestDropDoesNotRetryACut(t *testing.T) {
	var tb table
	tb.fail(cut)
	w := batchwrite.New(tb.insert, quiet, "rows", batchwrite.Drop)
	w.Record(0)
	w.Flush()
	tb.fail(nil)
	w.Close()
	if rows, _ := tb.snapshot(); len(rows) != 0 {
		t.Errorf("rows %v written, want none: batchwrite.Drop does not keep a failed batch", rows)
	}
}

// TestKeepBoundsWhatWaits: through a long cut at most batchwrite.MaxPending rows wait,
// the newest.
func TestKeepBoundsWhatWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("records over a hundred thousand rows")
	}
	var tb table
	tb.fail(cut)
	w := batchwrite.New(tb.insert, quiet, "rows", batchwrite.Keep)
	const over = 7
	for i := range batchwrite.MaxPending + over {
		w.Record(i)
		if i%1000 == 0 {
			w.Flush() // the queue never fills: a full one would write in Record, and meet the cut
		}
	}
	w.Flush()
	tb.fail(nil)
	w.Close()
	rows, _ := tb.snapshot()
	if len(rows) != batchwrite.MaxPending || rows[0] != over {
		t.Fatalf("%d rows written from %d, want %d from %d", len(rows), rows[0], batchwrite.MaxPending, over)
	}
}

// TestAFullQueueKeepWritesInTheCallerAndDropDrops: with the writer stuck in
// an insert, rows past the queue are written by Record (batchwrite.Keep) or lost
// (batchwrite.Drop); Record never waits for the queue.
func TestAFullQueueKeepWritesInTheCallerAndDropDrops(t *testing.T) {
	for _, p := range []batchwrite.Policy{batchwrite.Keep, batchwrite.Drop} {
		var tb table
		stuck, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		insert := func(batch []int) error {
			if batch[0] == 0 {
				once.Do(func() { close(stuck); <-release })
			}
			return tb.insert(batch)
		}
		w := batchwrite.New(insert, quiet, "rows", p)
		w.Record(0) // the tick writes it, and its write gets stuck
		<-stuck
		const past = 5
		for i := range batchwrite.QueueSize + past {
			w.Record(1 + i)
		}
		rows, _ := tb.snapshot()
		if want := map[batchwrite.Policy]int{batchwrite.Keep: past, batchwrite.Drop: 0}[p]; len(rows) != want {
			t.Errorf("policy %d: %d rows written by Record past the full queue, want %d", p, len(rows), want)
		}
		close(release)
		w.Close()
		rows, _ = tb.snapshot()
		if want := map[batchwrite.Policy]int{batchwrite.Keep: 1 + batchwrite.QueueSize + past, batchwrite.Drop: 1 + batchwrite.QueueSize}[p]; len(rows) != want {
			t.Errorf("policy %d: %d rows in all, want %d", p, len(rows), want)
		}
	}
}
