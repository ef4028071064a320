package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/faults"
)

// faultsAPI serves /api/faults over one faults.Service built from the
// Server's own order service, strategies and store.
type faultsAPI struct {
	s   *Server
	svc *faults.Service
}

// faultRoutes registers GET /api/faults (the kinds, and whether they run
// here) and POST /api/faults (inject one). Faults run only when
// SECKILL_FAULTS=on (read once, when the API is built) and, when an admin
// token is set, only with it: cmd/shop insists on a token beyond loopback,
// so a public shop can never be paused by a stranger.
func (s *Server) faultRoutes(api *gin.RouterGroup) {
	enabled := strings.EqualFold(config.Get(config.EnvFaults, ""), "on")
	f := &faultsAPI{s: s, svc: faults.New(enabled, s.orders, s.lockers, s.store)}
	api.GET("/faults", f.list)
	api.POST("/faults", s.requireAdmin, f.inject)
}

func (f *faultsAPI) list(c *gin.Context) {
	c.JSON(http.StatusOK, gin.H{"enabled": f.svc.Enabled(), "kinds": faults.Kinds()})
}

// inject decodes {"kind": ..., params} and runs the fault; 202 once it is
// in place (a pause waits for the next section, a slow_db hold runs on).
func (f *faultsAPI) inject(c *gin.Context) {
	if !f.svc.Enabled() {
		writeError(c, f.s.log, faults.ErrDisabled)
		return
	}
	var (
		kind   *string
		ms     *int64
		saleID *uint64
	)
	if err := decodeObject(c.Request.Body, map[string]any{"kind": &kind, "ms": &ms, "sale_id": &saleID}); err != nil {
		writeError(c, f.s.log, err)
		return
	}
	if kind == nil {
		writeError(c, f.s.log, badField("kind", "kind is required: one of %s", kindNames()))
		return
	}
	ctx := c.Request.Context()
	switch *kind {
	case faults.KindPauseHolder:
		d, err := duration(ms)
		if err == nil && saleID != nil {
			err = badField("sale_id", "%s takes no sale_id: it pauses the next section on this replica", *kind)
		}
		if err == nil {
			err = f.svc.PauseHolder(d)
		}
		if err != nil {
			writeError(c, f.s.log, err)
			return
		}
		c.JSON(http.StatusAccepted, gin.H{"kind": *kind, "ms": *ms})
	case faults.KindExpireZKSession:
		if ms != nil || saleID != nil {
			field := "ms"
			if ms == nil {
				field = "sale_id"
			}
			writeError(c, f.s.log, badField(field, "%s takes no parameters", *kind))
			return
		}
		id, err := f.svc.ExpireZKSession(ctx)
		if err != nil {
			writeError(c, f.s.log, err)
			return
		}
		c.JSON(http.StatusAccepted, gin.H{"kind": *kind, "session_id": id})
	case faults.KindSlowDB:
		d, err := duration(ms)
		if err == nil && (saleID == nil || *saleID == 0) {
			err = badField("sale_id", "sale_id (a positive integer) is required")
		}
		if err == nil {
			err = f.svc.SlowDB(ctx, *saleID, d)
		}
		if err != nil {
			writeError(c, f.s.log, err)
			return
		}
		c.JSON(http.StatusAccepted, gin.H{"kind": *kind, "ms": *ms, "sale_id": *saleID})
	default:
		writeError(c, f.s.log, badField("kind", "unknown kind %q: one of %s", clip(*kind), kindNames()))
	}
}

// duration validates ms: required, 1..MaxDuration.
func duration(ms *int64) (time.Duration, error) {
	max := faults.MaxDuration.Milliseconds()
	if ms == nil || *ms < 1 || *ms > max {
		return 0, badField("ms", "ms is required, from 1 to %d", max)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

func kindNames() string {
	var names []string
	for _, k := range faults.Kinds() {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}
