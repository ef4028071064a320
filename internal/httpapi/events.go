package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/httpapi/runsapi"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/runs"
)

// eventInterval is how often GET /api/events sends: a dashboard's figures
// are at most one second old.
var eventInterval = time.Second

// events is GET /api/events, a Server-Sent Events stream: every second an
// `event: runs` with the views of the running runs (plus the last finished
// one, so a dashboard shows a result once its run ends) and an
// `event: replicas` with discovery's list. The replica computes them once
// for all its streams (eventhub.Hub); a client over its cap is refused before
// the stream starts (429, or 503 when the replica is full). A stream ends
// when the client goes away (its request ctx is canceled), so a closed tab
// frees its goroutine and its place.
func (s *Server) events(c *gin.Context) {
	st, err := s.eventHub.Join(s.clientIP(c), eventInterval)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	defer s.eventHub.Leave(st)
	w := c.Writer
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no") // a proxy buffering the stream would delay every event
	w.WriteHeader(http.StatusOK)
	w.Flush()

	ctx := c.Request.Context()
	stopping := shutdownSignal(c.Request)
	for {
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return // the replica is shutting down: let Shutdown finish
		case snap := <-st.Next():
			for _, ev := range snap.Events() {
				if _, err := w.Write(ev); err != nil {
					return // the client is gone (or cannot be written to): stop
				}
				w.Flush() // each event leaves now rather than when a buffer fills
			}
		}
	}
}

// shutdowns maps each *http.Server that served a stream to a channel closed
// when it begins to shut down.
var shutdowns sync.Map

// shutdownSignal returns a channel closed when the http.Server serving r
// starts Shutdown (nil, never closed, outside a server). A stream never
// ends by itself, and http.Server.Shutdown waits for every handler: without
// this, one open dashboard tab would hold a stopping replica for its whole
// shutdown timeout and make it exit 1. Registered once per server, so
// streams do not pile up shutdown hooks.
func shutdownSignal(r *http.Request) <-chan struct{} {
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if hs == nil {
		return nil
	}
	ch := make(chan struct{})
	got, loaded := shutdowns.LoadOrStore(hs, ch)
	if !loaded {
		hs.RegisterOnShutdown(func() { close(ch) })
	}
	return got.(chan struct{})
}

// snapshotEvents computes one snapshot: a `runs` and a `replicas` event.
// A failed query is sent as an `event: error` in its place rather than
// ending the streams: the database hiccups, the dashboards keep their
// connection and show the problem.
func (s *Server) snapshotEvents(ctx context.Context) [][]byte {
	qctx, cancel := context.WithTimeout(ctx, replicasTimeout)
	defer cancel()
	var events [][]byte
	if views, err := s.liveRuns(qctx); err == nil {
		events = append(events, encodeEvent("runs", views))
	} else {
		events = append(events, encodeEvent("error", wire.Body{Error: "db_unavailable", Message: "runs: the database does not answer"}))
	}
	if replicas, err := s.replicaViews(qctx); err == nil {
		events = append(events, encodeEvent("replicas", replicas))
	} else {
		events = append(events, encodeEvent("error", wire.Body{Error: "db_unavailable", Message: "replicas: the database does not answer"}))
	}
	return events
}

// liveRuns: every running (or queued) run, then the newest finished one.
func (s *Server) liveRuns(ctx context.Context) ([]runs.RunView, error) {
	live, err := s.runs.List(ctx, runsapi.ListLimit, runs.StatusQueued, runs.StatusRunning)
	if err != nil {
		return nil, err
	}
	last, err := s.runs.List(ctx, 1, runs.StatusDone, runs.StatusFailed)
	if err != nil {
		return nil, err
	}
	return append(live, last...), nil
}

// encodeEvent is one SSE event: `event: name`, one `data:` line of JSON,
// a blank line.
func encodeEvent(name string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil { // the views are plain structs: it cannot fail
		data, _ = json.Marshal(wire.Body{Error: "internal", Message: "the event could not be encoded"})
		name = "error"
	}
	// json.Marshal never emits a raw newline, so one data line is enough.
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data)
}

// replicaViews is what GET /api/replicas shows, for the stream.
func (s *Server) replicaViews(ctx context.Context) ([]replicaView, error) {
	members, err := discovery.Recent(ctx, s.store.DB())
	if err != nil {
		return nil, err
	}
	out := make([]replicaView, 0, len(members))
	for _, m := range members {
		out = append(out, replicaView{ID: m.ID, Kind: string(m.Kind), URL: m.URL, PID: m.PID,
			StartedAt: m.StartedAt, LastSeen: m.LastSeen, AgeMS: m.Age.Milliseconds(), Alive: m.Alive})
	}
	return out, nil
}
