package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/herd"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// getHerd is GET /api/sales/:id/herd: the sale's time to sell out (from
// its orders), its first second after the opening and its answers per
// layer (from every replica's live figures). The dashboard's Herd panel and
// `loadtest herd` both read it.
func (s *Server) getHerd(c *gin.Context) {
	sale, ok := s.saleParam(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	v, err := herd.Load(ctx, s.store.DB(), sale)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, v)
}
