// Package eventhub is the live feed's broadcaster (GET /api/events): it
// computes one snapshot per interval for every open stream of a replica,
// caps the streams per client and in all, and keeps at most the latest
// unsent snapshot per stream (hub.go).
package eventhub

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// Default caps of the streams of one replica: per client address (a
// dashboard tab holds one stream) and in all.
const (
	DefaultPerClient = 8
	DefaultTotal     = 256
)

// Hub computes the live stream's snapshot once per interval for every
// open stream of this replica, so that a crowd of dashboards costs the
// database what one does. Its broadcaster runs only while a stream is open.
// Each stream holds at most one snapshot not yet sent, the latest: a slow
// client skips snapshots rather than queue them or hold up the others.
type Hub struct {
	compute   func(ctx context.Context) [][]byte // one snapshot's events, encoded
	perClient int
	total     int
	mu        sync.Mutex
	// onSnapshot, when set (OnSnapshot), is called after each snapshot is
	// published, by the broadcaster, under mu.
	onSnapshot func(seq uint64)
	streams    map[*Stream]struct{}
	byClient   map[string]int
	latest     *Snapshot          // the running broadcaster's last; nil when none runs
	stop       context.CancelFunc // stops the running broadcaster; nil when none runs
	seq        uint64             // snapshots published
}

// Snapshot is one snapshot's SSE events, encoded once for every stream.
type Snapshot struct {
	seq    uint64
	events [][]byte
}

// Stream is one open stream: its client and the next snapshot to send.
type Stream struct {
	client string
	next   chan *Snapshot // capacity 1, filled only under the hub's lock
}

// New is a hub whose snapshots compute makes; perClient and total cap
// the streams (0: DefaultPerClient and DefaultTotal).
func New(compute func(ctx context.Context) [][]byte, perClient, total int) *Hub {
	if perClient <= 0 {
		perClient = DefaultPerClient
	}
	if total <= 0 {
		total = DefaultTotal
	}
	return &Hub{compute: compute, perClient: perClient, total: total,
		streams: map[*Stream]struct{}{}, byClient: map[string]int{}}
}

// Join opens a stream for client, or refuses it: 429 when the client has
// its most streams open, 503 when the replica has. The first stream starts
// the broadcaster, which computes a snapshot at once; a later one gets the
// latest snapshot at once.
func (h *Hub) Join(client string, interval time.Duration) (*Stream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byClient[client] >= h.perClient {
		return nil, &wire.Error{Status: http.StatusTooManyRequests, Body: wire.Body{Error: "too_many_streams",
			Message: fmt.Sprintf("this client already has %d event streams open on this replica (the most it may); close one", h.perClient)}}
	}
	if len(h.streams) >= h.total {
		return nil, &wire.Error{Status: http.StatusServiceUnavailable, Body: wire.Body{Error: "streams_full", Retryable: true,
			Message: fmt.Sprintf("this replica serves its most event streams (%d); retry later, or use another replica", h.total)}}
	}
	st := &Stream{client: client, next: make(chan *Snapshot, 1)}
	h.streams[st] = struct{}{}
	h.byClient[client]++
	switch {
	case h.stop == nil:
		ctx, cancel := context.WithCancel(context.Background())
		h.stop = cancel
		go h.broadcast(ctx, interval)
	case h.latest != nil:
		st.next <- h.latest
	}
	return st, nil
}

// Leave closes st; the last stream stops the broadcaster.
func (h *Hub) Leave(st *Stream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.streams[st]; !ok {
		return
	}
	delete(h.streams, st)
	if h.byClient[st.client]--; h.byClient[st.client] <= 0 {
		delete(h.byClient, st.client)
	}
	if len(h.streams) == 0 && h.stop != nil {
		h.stop()
		h.stop, h.latest = nil, nil
	}
}

// broadcast computes and publishes a snapshot every interval until ctx is
// canceled (the last stream left).
func (h *Hub) broadcast(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if !h.publish(ctx, h.compute(ctx)) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// publish makes events the latest snapshot and offers it to every stream,
// replacing a snapshot a stream has not sent yet; false when ctx was
// canceled meanwhile (a newer broadcaster may be running).
func (h *Hub) publish(ctx context.Context, events [][]byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	h.seq++
	snap := &Snapshot{seq: h.seq, events: events}
	h.latest = snap
	for st := range h.streams {
		select {
		case <-st.next: // not sent yet: skipped
		default:
		}
		st.next <- snap // never blocks: emptied above, and filled only under h.mu
	}
	if h.onSnapshot != nil {
		h.onSnapshot(snap.seq)
	}
	return true
}

// Next is the stream's next snapshot to send, when there is one.
func (st *Stream) Next() <-chan *Snapshot { return st.next }

// Events are the snapshot's SSE events, encoded.
func (snap *Snapshot) Events() [][]byte { return snap.events }

// OnSnapshot has f called with each snapshot's number once it is
// published (by the broadcaster, which waits for it): a test's probe.
func (h *Hub) OnSnapshot(f func(seq uint64)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onSnapshot = f
}
