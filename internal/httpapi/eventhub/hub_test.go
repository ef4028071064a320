package eventhub

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fixedSnapshot is a snapshot computation that reads nothing.
func fixedSnapshot(context.Context) [][]byte { return [][]byte{[]byte("event: runs\ndata: []\n\n")} }

// A stream that does not take its snapshots holds one, the latest: the
// broadcaster neither waits for it nor queues for it.
func TestEventHubKeepsOnlyTheLatestForASlowStream(t *testing.T) {
	h := New(fixedSnapshot, 0, 0)
	slow, err := h.Join("192.0.2.1", time.Hour) // one snapshot now, the next in an hour
	if err != nil {
		t.Fatal(err)
	}
	fast, err := h.Join("192.0.2.2", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Leave(slow)
	defer h.Leave(fast)
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
	h := New(func(ctx context.Context) [][]byte {
		mu.Lock()
		computed++
		mu.Unlock()
		return fixedSnapshot(ctx)
	}, 0, 0)
	a, err := h.Join("192.0.2.1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	first := <-a.next
	b, err := h.Join("192.0.2.1", time.Hour)
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
	h.Leave(a)
	h.Leave(b)
	h.mu.Lock()
	stopped := h.stop == nil && h.latest == nil
	h.mu.Unlock()
	if !stopped {
		t.Fatal("the broadcaster still runs with no stream open")
	}
	c, err := h.Join("192.0.2.1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Leave(c)
	if got := <-c.next; got.seq <= first.seq {
		t.Fatalf("a restarted broadcaster sent snapshot %d, not a new one after %d", got.seq, first.seq)
	}
	mu.Lock()
	defer mu.Unlock()
	if computed != 2 {
		t.Fatalf("%d snapshots computed for two runs of the broadcaster an hour apart, want 2", computed)
	}
}
