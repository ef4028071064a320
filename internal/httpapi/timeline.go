package httpapi

import (
	"bytes"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/timeline"
)

// getTimeline is GET /api/sales/:id/timeline?from=&to= (ms since the epoch).
func (s *Server) getTimeline(c *gin.Context) {
	t, err := s.timeline(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, t)
}

// getTimelineHTML is GET /api/sales/:id/timeline.html: the same timeline as
// one self-contained HTML file.
func (s *Server) getTimelineHTML(c *gin.Context) {
	t, err := s.timeline(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	var buf bytes.Buffer
	if err := timeline.WriteHTML(&buf, t); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	writeHTML(c, buf.Bytes())
}

// timeline parses the sale and the window and builds the sale's timeline,
// after writing this replica's queued sections and events.
func (s *Server) timeline(c *gin.Context) (timeline.Timeline, error) {
	id, err := saleID(c)
	if err != nil {
		return timeline.Timeline{}, err
	}
	from, err := millisParam(c, "from")
	if err != nil {
		return timeline.Timeline{}, err
	}
	to, err := millisParam(c, "to")
	if err != nil {
		return timeline.Timeline{}, err
	}
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		return timeline.Timeline{}, wire.BadField("from", "from (%s) must not be after to (%s)",
			c.Query("from"), c.Query("to"))
	}
	sale, err := s.store.GetSale(c.Request.Context(), id)
	if err != nil {
		return timeline.Timeline{}, err
	}
	s.orders.Flush()
	return timeline.Build(c.Request.Context(), s.store.DB(), sale, from, to)
}

// millisParam parses query parameter name, milliseconds since the Unix
// epoch (a fraction allowed); absent: the zero time.
func millisParam(c *gin.Context, name string) (time.Time, error) {
	raw, ok := c.GetQuery(name)
	if !ok {
		return time.Time{}, nil
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil || v < 0 || v > 1e14 || v != v {
		return time.Time{}, wire.BadField(name, "%s must be milliseconds since the Unix epoch, not %q", name, clip.Input(raw))
	}
	return timeline.Millis(v).Time(), nil
}
