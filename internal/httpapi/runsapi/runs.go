package runsapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/runs"
)

// ListLimit: GET /api/runs shows the newest 50 (and GET /api/events the
// 50 newest live ones).
const ListLimit = 50

// runMembers are the members of POST /api/runs, decoded into spec: a
// sale's, but the name (a run names its sales itself), and the load.
func runMembers(spec *runs.Spec) map[string]any {
	m := wire.SaleMembers(&spec.Sale)
	delete(m, "name")
	delete(m, "opens_at") // a step's sale is made when the step starts: opens_in_ms only
	m["buyers"], m["concurrency"], m["rate"], m["replicas"] = &spec.Buyers, &spec.Concurrency, &spec.Rate, &spec.Replicas
	return m
}

// runRoutes adds the routes of runs and of the agents' shares.
func (s *server) runRoutes(api *gin.RouterGroup) {
	api.POST("/runs", s.admin, s.createRun)
	api.GET("/runs", s.listRuns)
	api.GET("/runs/:id", s.getRun)
	api.GET("/claims", s.getClaims)
	// The agents' endpoints write too (discovery, claims, the figures a
	// dashboard shows): with an admin token set, agents must carry it.
	api.POST("/runs/:id/steps/:step/shares/:share/report", s.admin, s.reportShare)
	api.POST("/agents/heartbeat", s.admin, s.agentHeartbeat)
	api.POST("/agents/claim", s.admin, s.claimShare)
}

// createRun is POST /api/runs (admin): validate, pick the live agents and
// shop replicas, store the run and start its first step.
func (s *server) createRun(c *gin.Context) {
	var spec runs.Spec
	if err := wire.DecodeObject(c.Request.Body, runMembers(&spec)); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	cfg, err := runs.Validate(spec, s.sales)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	id, err := s.start(c.Request.Context(), cfg)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	s.writeRun(c, id, http.StatusCreated)
}

// listRuns is GET /api/runs: the newest runs first.
func (s *server) listRuns(c *gin.Context) {
	views, err := s.runs.List(c.Request.Context(), ListLimit)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, views)
}

// getClaims is GET /api/claims: the seeds' performance claims judged on the
// newest finished run that measured the strategies they compare.
func (s *server) getClaims(c *gin.Context) {
	v, err := s.runs.Claims(c.Request.Context())
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, v)
}

// getRun is GET /api/runs/:id: the merged view of every step.
func (s *server) getRun(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	s.writeRun(c, uint64(id), http.StatusOK)
}

func (s *server) writeRun(c *gin.Context, id uint64, status int) {
	v, err := s.runs.View(c.Request.Context(), id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(status, v)
}
