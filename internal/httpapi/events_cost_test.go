package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// withStreamCaps sets the caps of GET /api/events.
func withStreamCaps(perClient, total int) func(*envConfig) {
	return func(c *envConfig) { c.streamsPerClient, c.streams = perClient, total }
}

// openStream opens GET /api/events on url and sends on the returned channel
// at each `runs` event it reads (dropping ticks nobody takes); the stream
// closes at cleanup. An error means the stream did not start.
func openStream(t *testing.T, url string) (<-chan struct{}, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("stream: %d %s", resp.StatusCode, b)
	}
	ticks := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if line == "event: runs\n" {
				select {
				case ticks <- struct{}{}:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-done })
	return ticks, nil
}

// waitTick waits for a stream's next tick, 30 s at most.
func waitTick(ticks <-chan struct{}) error {
	select {
	case <-ticks:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("no event within 30 s")
	}
}

// snapshotCosts records the statements counted when each snapshot was
// published: the differences are what each snapshot cost.
type snapshotCosts struct {
	mu   sync.Mutex
	at   []int64
	more chan struct{}
}

func (s *snapshotCosts) record(n int64) {
	s.mu.Lock()
	s.at = append(s.at, n)
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
}

func (s *snapshotCosts) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

// costs waits for snapshot from+k and returns the cost of snapshots
// from+1..from+k.
func (s *snapshotCosts) costs(t *testing.T, from, k int) []int64 {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for s.len() < from+k+1 {
		select {
		case <-s.more:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%d snapshots after 60 s, want %d", s.len(), from+k+1)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int64, 0, k)
	for i := from + 1; i <= from+k; i++ {
		out = append(out, s.at[i]-s.at[i-1])
	}
	return out
}

// The database statements the live stream costs do not grow with the
// streams open: a snapshot is computed once per interval for all of them,
// and 200 streams cost per snapshot what one does. On its own database, so
// that no other package's runs change what a snapshot reads.
func TestEventsCostDoesNotGrowWithStreams(t *testing.T) {
	db := testenv.DB(t, "httpapi_events")
	e := newEnv(t, withStreamCaps(1000, 1000), func(c *envConfig) { c.db = db })
	stmts := countStatements(t, e.db)
	costs := &snapshotCosts{more: make(chan struct{}, 1)}
	e.srv.eventHub.OnSnapshot(func(uint64) { costs.record(stmts.count()) })
	eventInterval = 100 * time.Millisecond
	t.Cleanup(func() { eventInterval = time.Second })
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)

	const k = 10
	watched, err := openStream(t, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := waitTick(watched); err != nil {
		t.Fatal(err)
	}
	// The stream may get its first snapshot before the hook has recorded it
	// (the hub hands a snapshot out, then calls the hook): count from the
	// first one recorded.
	one := costs.costs(t, max(costs.len()-1, 0), k)

	var wg sync.WaitGroup
	for range 199 {
		wg.Go(func() {
			ticks, err := openStream(t, srv.URL)
			if err == nil {
				err = waitTick(ticks)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	crowd := costs.costs(t, max(costs.len()-1, 0), k)
	t.Logf("statements per snapshot: %v with 1 stream, %v with 200", one, crowd)
	if slices.Max(crowd) > slices.Max(one) {
		t.Fatalf("a snapshot cost more with 200 streams than with 1: %v, then %v", one, crowd)
	}
}

// Over its caps a client is refused before the stream starts, with a JSON
// error: 429 past its own cap, 503 past the replica's; a stream that ends
// frees its place.
func TestEventsCaps(t *testing.T) {
	e := runsEnv(t, withStreamCaps(2, 3))
	eventInterval = 50 * time.Millisecond
	t.Cleanup(func() { eventInterval = time.Second })

	open := func(ip string) (*flushRecorder, context.CancelFunc, chan struct{}) {
		ctx, cancel := context.WithCancel(context.Background())
		req := httptest.NewRequest(http.MethodGet, "/api/events", nil).WithContext(ctx)
		req.RemoteAddr = ip + ":40000"
		w := &flushRecorder{header: http.Header{}}
		done := make(chan struct{})
		go func() { defer close(done); e.srv.ServeHTTP(w, req) }()
		return w, cancel, done
	}
	started := func(w *flushRecorder) bool {
		body, _ := w.snapshot()
		return len(body) > 0
	}
	var cancels []context.CancelFunc
	var dones []chan struct{}
	t.Cleanup(func() {
		for i, c := range cancels {
			c()
			<-dones[i]
		}
	})
	for _, ip := range []string{"192.0.2.1", "192.0.2.1", "192.0.2.2"} {
		w, cancel, done := open(ip)
		cancels, dones = append(cancels, cancel), append(dones, done)
		waitFor(t, "the stream's first event", func() bool { return started(w) })
	}

	refused := func(ip string, status int, code string) {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/api/events", nil)
		req.RemoteAddr = ip + ":40001"
		e.srv.ServeHTTP(rec, req)
		wantError(t, rec, status, code, "")
	}
	refused("192.0.2.1", http.StatusTooManyRequests, "too_many_streams") // its own cap first
	refused("192.0.2.3", http.StatusServiceUnavailable, "streams_full")

	// The first client's first stream ends: it may open one again.
	cancels[0]()
	<-dones[0]
	w, cancel, done := open("192.0.2.1")
	cancels[0], dones[0] = cancel, done
	waitFor(t, "the reopened stream's first event", func() bool { return started(w) })
}

// waitFor polls cond every 10 ms for 10 s at most.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
