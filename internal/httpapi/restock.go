package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/sale"
)

// restock is POST /api/sales/:id/restock {"units"} (admin): the units go
// to the stock of record (and the strategy's own store), then the sold-out
// cache is cleared on every replica.
func (s *Server) restock(c *gin.Context) {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	var units *int64
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"units": &units}); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	if units == nil || *units < 1 || *units > sale.MaxStock {
		wire.WriteError(c, s.log, wire.BadField("units", "units is required: a whole number from 1 to %d", sale.MaxStock))
		return
	}
	ctx := c.Request.Context()
	if err := s.orders.Restock(ctx, id, *units); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	s.soldOut.Clear(ctx, id)
	v, err := s.view(ctx, id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, v)
}
