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
	"github.com/seckill-lab/seckill/internal/runs"
)

// eventInterval is how often GET /api/events sends: the issue's "at most
// one second old".
var eventInterval = time.Second

// events is GET /api/events, a Server-Sent Events stream: every second an
// `event: runs` with the views of the running runs (plus the last finished
// one, so a dashboard shows a result once its run ends) and an
// `event: replicas` with discovery's list. It ends when the client goes
// away (its request ctx is canceled), so a closed tab frees its goroutine.
func (s *Server) events(c *gin.Context) {
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
	tick := time.NewTicker(eventInterval)
	defer tick.Stop()
	for {
		if err := s.sendSnapshot(ctx, w); err != nil {
			return // the client is gone (or cannot be written to): stop
		}
		select {
		case <-ctx.Done():
			return
		case <-stopping:
			return // the replica is shutting down: let Shutdown finish
		case <-tick.C:
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

// sendSnapshot writes one `runs` and one `replicas` event. A failed query
// is sent as an `event: error` rather than ending the stream: the database
// hiccups, the dashboard keeps its connection and shows the problem.
func (s *Server) sendSnapshot(ctx context.Context, w gin.ResponseWriter) error {
	qctx, cancel := context.WithTimeout(ctx, replicasTimeout)
	defer cancel()
	views, err := s.liveRuns(qctx)
	if err == nil {
		err = writeEvent(w, "runs", views)
	} else if ctx.Err() == nil {
		err = writeEvent(w, "error", errorBody{Error: "db_unavailable", Message: "runs: the database does not answer"})
	}
	if err != nil || ctx.Err() != nil {
		return firstErr(err, ctx.Err())
	}
	replicas, err := s.replicaViews(qctx)
	if err == nil {
		err = writeEvent(w, "replicas", replicas)
	} else if ctx.Err() == nil {
		err = writeEvent(w, "error", errorBody{Error: "db_unavailable", Message: "replicas: the database does not answer"})
	}
	return firstErr(err, ctx.Err())
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// liveRuns: every running (or queued) run, then the newest finished one.
func (s *Server) liveRuns(ctx context.Context) ([]runs.RunView, error) {
	live, err := s.runs.List(ctx, runListLimit, runs.StatusQueued, runs.StatusRunning)
	if err != nil {
		return nil, err
	}
	last, err := s.runs.List(ctx, 1, runs.StatusDone, runs.StatusFailed)
	if err != nil {
		return nil, err
	}
	return append(live, last...), nil
}

// writeEvent writes one SSE event (`event: name`, one `data:` line of JSON,
// a blank line) and flushes it, so it leaves now rather than when a buffer
// fills.
func writeEvent(w gin.ResponseWriter, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	// json.Marshal never emits a raw newline, so one data line is enough.
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	w.Flush()
	return nil
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
