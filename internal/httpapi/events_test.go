package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/runs"
)

// flushRecorder is a ResponseWriter whose body can be read while the
// handler is still writing (httptest.ResponseRecorder's cannot, race-free).
type flushRecorder struct {
	mu      sync.Mutex
	header  http.Header
	status  int
	body    bytes.Buffer
	flushes int
}

func (r *flushRecorder) Header() http.Header { return r.header }
func (r *flushRecorder) WriteHeader(s int) {
	r.mu.Lock()
	r.status = s
	r.mu.Unlock()
}
func (r *flushRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.Write(p)
}
func (r *flushRecorder) Flush() {
	r.mu.Lock()
	r.flushes++
	r.mu.Unlock()
}
func (r *flushRecorder) snapshot() (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body.String(), r.flushes
}

// The stream's headers, its event format, one flush per event, and the
// handler's end when the client goes.
func TestEventsStream(t *testing.T) {
	e := runsEnv(t)
	eventInterval = 50 * time.Millisecond
	t.Cleanup(func() { eventInterval = time.Second })

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequest(http.MethodGet, "/api/events", nil).WithContext(ctx)
	w := &flushRecorder{header: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.srv.ServeHTTP(w, req)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		body, _ := w.snapshot()
		if strings.Count(body, "event: replicas\n") >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not return within 5s of the client going away")
	}

	body, flushes := w.snapshot()
	h := w.Header()
	if w.status != http.StatusOK || h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-cache" ||
		h.Get("Connection") != "keep-alive" {
		t.Fatalf("status %d headers %v", w.status, h)
	}
	events := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	if len(events) < 4 || flushes < len(events) {
		t.Fatalf("%d events, %d flushes: %q", len(events), flushes, body)
	}
	for i, ev := range events {
		name, data, ok := strings.Cut(ev, "\ndata: ")
		want := []string{"event: runs", "event: replicas"}[i%2]
		if !ok || name != want || strings.Contains(data, "\n") {
			t.Fatalf("event %d is %q, want %q then one data line", i, ev, want)
		}
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event %d data is not JSON: %v", i, err)
		}
		if i == 0 {
			var rv []runs.RunView
			if err := json.Unmarshal([]byte(data), &rv); err != nil {
				t.Fatalf("runs event: %v", err)
			}
		}
	}
}

// Over a real connection: a client that disconnects frees the handler's
// goroutine (the goroutine count settles back).
func TestEventsDisconnectFreesGoroutine(t *testing.T) {
	e := runsEnv(t)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	before := runtime.NumGoroutine()
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || line != "event: runs\n" {
			t.Fatalf("first line %q: %v", line, err)
		}
		cancel()
		resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+1 {
		t.Fatalf("%d goroutines after 3 disconnected streams, %d before: a handler outlived its client", n, before)
	}
}

// http.Server.Shutdown waits for every handler: an open stream must end
// when its server starts shutting down, or one dashboard tab would hold a
// stopping replica for its whole shutdown timeout.
func TestEventsEndOnShutdown(t *testing.T) {
	e := runsEnv(t)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || line != "event: runs\n" {
		t.Fatalf("first line %q: %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open stream: %v", err)
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
