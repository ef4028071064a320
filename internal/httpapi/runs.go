package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/runs"
)

// runListLimit: GET /api/runs shows the newest 50.
const runListLimit = 50

// runMembers are the members of POST /api/runs, decoded into spec: a
// sale's, but the name (a run names its sales itself), and the load.
func runMembers(spec *runs.Spec) map[string]any {
	m := saleMembers(&spec.Sale)
	delete(m, "name")
	delete(m, "opens_at") // a step's sale is made when the step starts: opens_in_ms only
	m["buyers"], m["concurrency"], m["rate"], m["replicas"] = &spec.Buyers, &spec.Concurrency, &spec.Rate, &spec.Replicas
	return m
}

// runRoutes adds the routes of runs, agents and events.
func (s *Server) runRoutes(api *gin.RouterGroup) {
	api.POST("/runs", s.requireAdmin, s.createRun)
	api.GET("/runs", s.listRuns)
	api.GET("/runs/:id", s.getRun)
	api.GET("/claims", s.getClaims)
	// The agents' endpoints write too (discovery, claims, the figures a
	// dashboard shows): with an admin token set, agents must carry it.
	api.POST("/runs/:id/steps/:step/shares/:share/report", s.requireAdmin, s.reportShare)
	api.POST("/agents/heartbeat", s.requireAdmin, s.agentHeartbeat)
	api.POST("/agents/claim", s.requireAdmin, s.claimShare)
	api.GET("/events", s.events)
}

// createRun is POST /api/runs (admin): validate, pick the live agents and
// shop replicas, store the run and start its first step.
func (s *Server) createRun(c *gin.Context) {
	var spec runs.Spec
	if err := decodeObject(c.Request.Body, runMembers(&spec)); err != nil {
		writeError(c, s.log, err)
		return
	}
	cfg, err := runs.Validate(spec, s.sales)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	agents, shops, err := s.liveMembers(c)
	if err != nil {
		return
	}
	targets, err := runs.Targets(cfg, agents, shops)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	id, err := s.runs.Create(c.Request.Context(), cfg, agents, targets)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	s.writeRun(c, id, http.StatusCreated)
}

// listRuns is GET /api/runs: the newest runs first.
func (s *Server) listRuns(c *gin.Context) {
	views, err := s.runs.List(c.Request.Context(), runListLimit)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, views)
}

// getClaims is GET /api/claims: the seeds' performance claims judged on the
// newest finished run that measured the strategies they compare.
func (s *Server) getClaims(c *gin.Context) {
	v, err := s.runs.Claims(c.Request.Context())
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, v)
}

// getRun is GET /api/runs/:id: the merged view of every step.
func (s *Server) getRun(c *gin.Context) {
	id, err := pathInt(c, "id")
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	s.writeRun(c, uint64(id), http.StatusOK)
}

func (s *Server) writeRun(c *gin.Context, id uint64, status int) {
	v, err := s.runs.View(c.Request.Context(), id)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	c.JSON(status, v)
}

// pathInt parses a non-negative decimal path parameter.
func pathInt(c *gin.Context, name string) (int64, error) {
	raw := c.Param(name)
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		e := badRequest("invalid_id", "%s must be a non-negative decimal integer, not %q", name, clip.Input(raw))
		e.body.Field = name
		return 0, e
	}
	return n, nil
}
