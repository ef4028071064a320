package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/metrics"
)

// saleLive is GET /api/sales/:id/live: the sale's server-side figures
// (latency, lock wait, critical-section time, outcomes, retries, fairness)
// merged across every replica that published them to sale_stats, at most
// about metrics.PublishInterval old. Any replica answers the same, since
// it reads the shared store rather than its own memory. An unknown sale is
// a 404 (the sale is looked up first); a known sale nobody has ordered
// from yet shows zeros.
func (s *Server) saleLive(c *gin.Context) {
	sale, ok := s.saleParam(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	live, err := metrics.LoadMerged(ctx, s.store.DB(), sale.ID)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, live)
}
