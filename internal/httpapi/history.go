package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// The bounds of the linearizability check: the history route's (a 2,000
// order sale takes well under it) and the sale view's, which serves the
// last verdict (history.Verdicts) and must stay quick.
const (
	historyBound     = 5 * time.Second
	saleHistoryBound = 300 * time.Millisecond
)

// getHistory is GET /api/sales/:id/history: the sale's order history
// checked for linearizability.
func (s *Server) getHistory(c *gin.Context) {
	sl, ops, ok := s.saleHistory(c)
	if !ok {
		return
	}
	r := history.Check(ops, sl.InitialStock, historyBound)
	r.Visualization = visualizationPath(sl.ID)
	c.JSON(http.StatusOK, r)
}

// getHistoryHTML is GET /api/sales/:id/history.html: porcupine's own
// drawing of the check (rows named by replica, hover for the stock before
// and after each answer) under a heading that names the sale and says the
// verdict and how to read the drawing, in Chinese with ?lang=zh.
func (s *Server) getHistoryHTML(c *gin.Context) {
	sl, ops, ok := s.saleHistory(c)
	if !ok {
		return
	}
	var page bytes.Buffer
	zh := c.Query("lang") == "zh"
	name := fmt.Sprintf("Sale %d (%s, %s)", sl.ID, sl.Name, sl.Strategy)
	if zh {
		name = fmt.Sprintf("秒杀场次 %d（%s，%s）", sl.ID, sl.Name, sl.Strategy)
	}
	if err := history.Visualize(&page, ops, sl.InitialStock, historyBound, history.Page{Sale: name, Zh: zh}); err != nil {
		wire.WriteError(c, s.log, &wire.Error{Status: http.StatusServiceUnavailable, Body: wire.Body{Error: "check_unfinished",
			Message: err.Error() + " Nothing to draw."}})
		return
	}
	writeHTML(c, page.Bytes())
}

// saleHistory reads the sale named by :id and its recorded ops, after
// writing this replica's queued ones; it renders the error itself.
func (s *Server) saleHistory(c *gin.Context) (inventory.Sale, []history.Op, bool) {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return inventory.Sale{}, nil, false
	}
	s.orders.Flush()
	ctx := c.Request.Context()
	sl, err := s.store.GetSale(ctx, id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return sl, nil, false
	}
	ops, err := history.Load(ctx, s.store.DB(), id)
	if err != nil {
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return sl, nil, false
	}
	return sl, ops, true
}

// saleHistoryVerdict is the sale view's history member: the last verdict,
// checked again within a short bound when the record grew. Nil when the
// database did not answer (the view still serves the rest).
func (s *Server) saleHistoryVerdict(ctx context.Context, sl inventory.Sale) *history.Result {
	r, err := s.verdicts.Of(ctx, s.store.DB(), sl.ID, sl.InitialStock, saleHistoryBound)
	if err != nil {
		s.log.Warn("the sale's history verdict", "sale", sl.ID, "err", err)
		return nil
	}
	r.Visualization = visualizationPath(sl.ID)
	return &r
}

func visualizationPath(saleID uint64) string {
	return fmt.Sprintf("/api/sales/%d/history.html", saleID)
}
