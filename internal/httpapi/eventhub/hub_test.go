package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixedSnapshot is a snapshot computation that reads nothing.
func fixedSnapshot(context.Context) [][]byte { return [][]byte{[]byte("event: runs\ndata: []\n\n")} }

// A stream that does not take its snapshots holds one, the latest: the
// broadcaster neither waits for it nor queues for it.
func TestEventHubKeepsOnlyTheLatestForASlowStream(t *testing.T) {
	h := newEventHub(fixedSnapshot, 0, 0)
	slow, err := h.join("192.0.2.1", time.Hour) // one snapshot now, the next in an hour
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.join("192.0.2.2", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer h.leave(slow)
	defer h.leave(fast)
	first := <-fast.next // the broadcaster's first, or the latest at joining
	ctx := context.Background()
	for range 5 {
		if !h.publish(ctx, fixedSnapshot(ctx)) {
			t.Fatal("publish refused while streams are open")
		}
		if got := <-fast.next; got.seq <= first.seq {
			t.Fatalf("the fast stream got snapshot %d after %d", got.seq, first.seq)
		}
	}
	if n := len(slow.next); n != 1 {
		t.Fatalf("the slow stream holds %d snapshots, want 1", n)
	}
	if got := <-slow.next; got.seq != h.seq {
		t.Fatalf("the slow stream holds snapshot %d, want the latest %d", got.seq, h.seq)
	}
}

// A stream opened while the broadcaster runs gets its latest snapshot at
// once; the last stream to leave stops it, and the next starts it again.
func TestEventHubRunsWhileAStreamIsOpen(t *testing.T) {
	var mu sync.Mutex
	computed := 0
	h := newEventHub(func(ctx context.Context) [][]byte {
		mu.Lock()
		computed++
		mu.Unlock()
		return fixedSnapshot(ctx)
	}, 0, 0)
	a, err := h.join("192.0.2.1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	first := <-a.next
	b, err := h.join("192.0.2.1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-b.next:
		if got != first {
			t.Fatalf("the second stream got snapshot %d, want the latest %d", got.seq, first.seq)
		}
	default:
		t.Fatal("a stream joining a running broadcaster got nothing at once")
	}
	h.leave(a)
	h.leave(b)
	h.mu.Lock()
	stopped := h.stop == nil && h.latest == nil
	h.mu.Unlock()
	if !stopped {
		t.Fatal("the broadcaster still runs with no stream open")
	}
	c, err := h.join("192.0.2.1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer h.leave(c)
	if got := <-c.next; got.seq <= first.seq {
		t.Fatalf("a restarted broadcaster sent snapshot %d, not a new one after %d", got.seq, first.seq)
	}
	mu.Lock()
	defer mu.Unlock()
	if computed != 2 {
		t.Fatalf("%d snapshots computed for two runs of the broadcaster an hour apart, want 2", computed)
	}
}

// blockedWriter is a client that reads nothing: every write blocks until
// released.
type blockedWriter struct {
	flushRecorder
	release chan struct{}
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	<-w.release
	return w.flushRecorder.Write(p)
}

// A client that cannot be written to does not hold up the others' events.
func TestEventsSlowClientBlocksNoOther(t *testing.T) {
	e := runsEnv(t)
	eventInterval = 50 * time.Millisecond
	t.Cleanup(func() { eventInterval = time.Second })
	serve := func(w http.ResponseWriter) func() {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest(http.MethodGet, "/api/events", nil).WithContext(ctx)
		done := make(chan struct{})
		go func() { defer close(done); e.srv.ServeHTTP(w, req) }()
		return func() { cancel(); <-done }
	}
	slow := &blockedWriter{flushRecorder: flushRecorder{header: http.Header{}}, release: make(chan struct{})}
	stopSlow := serve(slow)
	fast := &flushRecorder{header: http.Header{}}
	stopFast := serve(fast)
	defer stopFast()
	waitFor(t, "5 events on the fast stream while the slow one is stuck", func() bool {
		body, _ := fast.snapshot()
		return strings.Count(body, "event: runs\n") >= 5
	})
	close(slow.release)
	stopSlow()
}
