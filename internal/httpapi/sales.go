package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
)

// createSale is POST /api/sales (admin). The sale service validates before
// its single write, so a rejected request writes nothing.
func (s *Server) createSale(c *gin.Context) {
	var spec sale.Spec
	if err := wire.DecodeObject(c.Request.Body, wire.SaleMembers(&spec)); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	created, err := s.sales.Create(c.Request.Context(), spec)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	s.salesList.forget() // its creator lists it at once
	// A new sale has no orders: its stats are zero by construction.
	v := inventory.NewSaleView(created, inventory.Stats{})
	s.enrich(c.Request.Context(), &v)
	c.JSON(http.StatusCreated, v)
}

// getSale is GET /api/sales/:id.
func (s *Server) getSale(c *gin.Context) {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	// This replica's critical sections are logged in batches; writing the
	// queued ones first makes the violations exact for every section it has
	// answered. A client reading a settled sale asks every replica once.
	s.orders.Flush()
	v, err := s.view(c.Request.Context(), id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, saleWithHistory{SaleView: v, History: s.saleHistoryVerdict(c.Request.Context(), v.Sale)})
}

// saleWithHistory is GET /api/sales/:id's answer: the view and its
// history's linearizability verdict (history.go).
type saleWithHistory struct {
	inventory.SaleView
	History *history.Result `json:"history"`
}

func (s *Server) view(ctx context.Context, id uint64) (inventory.SaleView, error) {
	got, err := s.store.GetSale(ctx, id)
	if err != nil {
		return inventory.SaleView{}, err
	}
	v, err := s.store.View(ctx, got)
	if err != nil {
		return v, err
	}
	v.StoreStock = s.storeStock(ctx, got)
	s.enrich(ctx, &v)
	return v, nil
}

// stockReporter is a strategy that keeps a stock of its own and can say it.
type stockReporter interface {
	StockLeft(ctx context.Context, key string) (int64, error)
}

// storeStock is the sale's stock in its strategy's own store, or nil (no
// such store, or it does not answer: the view still serves the database's).
func (s *Server) storeStock(ctx context.Context, sl inventory.Sale) *int64 {
	l, err := s.lockers.Get(sl.Strategy, order.LockOptions(sl))
	if err != nil {
		return nil
	}
	r, ok := lockstrategy.As[stockReporter](l)
	if !ok {
		return nil
	}
	n, err := r.StockLeft(ctx, s.orders.LockKey(sl.ID))
	if err != nil {
		return nil
	}
	return &n
}

// saleParam reads the sale named by :id; on a bad id or no such sale it
// writes the error and returns false.
func (s *Server) saleParam(c *gin.Context) (inventory.Sale, bool) {
	id, err := saleID(c)
	if err == nil {
		var sale inventory.Sale
		if sale, err = s.store.GetSale(c.Request.Context(), id); err == nil {
			return sale, true
		}
	}
	wire.WriteError(c, s.log, err)
	return inventory.Sale{}, false
}

// saleID parses the :id path parameter: a decimal integer (ids start at 1,
// so 0 parses and is then simply not found).
func saleID(c *gin.Context) (uint64, error) {
	raw := c.Param("id")
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		e := wire.BadRequest("invalid_id", "the sale id must be a decimal integer, not %q", clip.Input(raw))
		e.Body.Field = "id"
		return 0, e
	}
	return id, nil
}
