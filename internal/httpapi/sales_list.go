package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/singleflight"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// listLimit: GET /api/sales shows the newest 100.
const listLimit = 100

// salesListFresh is how long one computation of GET /api/sales answers
// every client of this replica: a crowd polling the list costs one
// computation a second, not one per request.
const salesListFresh = time.Second

// salesListTimeout bounds one computation. It is shared, so it runs on a
// context of its own: the client that started it leaving does not fail the
// others waiting for it.
const salesListTimeout = 30 * time.Second

// listSales is GET /api/sales: the newest sales first, with their stats
// (the sold, duplicates and sections of all of them read in one grouped
// query each), at most salesListFresh old.
func (s *Server) listSales(c *gin.Context) {
	body, err := s.salesList.get(c.Request.Context(), s.computeSalesList)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && c.Request.Context().Err() == nil {
			err = fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err)
		}
		wire.WriteError(c, s.log, err)
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", body)
}

// computeSalesList reads the list and encodes it once for every client.
func (s *Server) computeSalesList(ctx context.Context) ([]byte, error) {
	sales, err := s.store.ListSales(ctx, listLimit)
	if err != nil {
		return nil, err
	}
	views, err := s.store.Views(ctx, sales)
	if err != nil {
		return nil, err
	}
	for i := range views {
		judgeListed(&views[i])
	}
	return json.Marshal(views)
}

// salesList is GET /api/sales's shared answer: computed by one request at
// a time (single-flight: the others wait for its answer) and served for
// salesListFresh. A sale this replica creates starts a new generation, so
// that its creator lists it at once.
type salesList struct {
	flight singleflight.Group
	gen    atomic.Uint64

	mu   sync.Mutex
	last listAnswer
}

// listAnswer is one computation's encoded list.
type listAnswer struct {
	body []byte
	gen  uint64
	at   time.Time // when its computation began: its figures are at least this fresh
}

// forget makes every answer computed so far too old to serve.
func (l *salesList) forget() { l.gen.Add(1) }

// get answers from the last computation when it is fresh, else from the
// one in flight, else from a new one.
func (l *salesList) get(ctx context.Context, compute func(context.Context) ([]byte, error)) ([]byte, error) {
	gen := l.gen.Load()
	if body, ok := l.fresh(gen); ok {
		return body, nil
	}
	ch := l.flight.DoChan(strconv.FormatUint(gen, 10), func() (any, error) {
		if body, ok := l.fresh(gen); ok { // one just finished before this flight began
			return body, nil
		}
		began := time.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), salesListTimeout)
		defer cancel()
		body, err := compute(cctx)
		if err == nil {
			l.keep(listAnswer{body: body, gen: gen, at: began})
		}
		return body, err
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.([]byte), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fresh is the last answer, if it was computed in generation gen less than
// salesListFresh ago.
func (l *salesList) fresh(gen uint64) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.body == nil || l.last.gen != gen || time.Since(l.last.at) >= salesListFresh {
		return nil, false
	}
	return l.last.body, true
}

// keep stores a, unless a newer answer is already there.
func (l *salesList) keep(a listAnswer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.gen > l.last.gen || a.gen == l.last.gen && a.at.After(l.last.at) {
		l.last = a
	}
}
