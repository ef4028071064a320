package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Bounds of a run (POST /api/runs).
const (
	MaxRunBuyers       = 1_000_000
	MaxRunConcurrency  = 10_000
	MaxRunRate         = 1_000_000
	MaxRunReplicas     = 1000
	DefaultConcurrency = 50
	runListLimit       = 50
	strategyAll        = "all"
)

// runRequest is the body of POST /api/runs: a sale's members plus the load.
type runRequest struct {
	spec        sale.Spec
	Buyers      *int64
	Concurrency *int64
	Rate        *float64
	Replicas    *int64
}

func (r *runRequest) members() map[string]any {
	m := saleMembers(&r.spec)
	delete(m, "name") // a run names its sales itself
	m["buyers"], m["concurrency"], m["rate"], m["replicas"] = &r.Buyers, &r.Concurrency, &r.Rate, &r.Replicas
	return m
}

// runRoutes adds the routes of runs, agents and events.
func (s *Server) runRoutes(api *gin.RouterGroup) {
	api.POST("/runs", s.requireAdmin, s.createRun)
	api.GET("/runs", s.listRuns)
	api.GET("/runs/:id", s.getRun)
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
	var req runRequest
	if err := decodeObject(c.Request.Body, req.members()); err != nil {
		writeError(c, s.log, err)
		return
	}
	cfg, err := s.validateRun(req)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	ctx := c.Request.Context()
	agents, shops, err := s.liveMembers(c)
	if err != nil {
		return
	}
	if len(agents) == 0 {
		writeError(c, s.log, errNoRunAgents)
		return
	}
	if cfg.Replicas > len(shops) {
		writeError(c, s.log, badField("replicas", "replicas is %d but only %d shop replicas are alive", cfg.Replicas, len(shops)))
		return
	}
	if cfg.Replicas > 0 {
		shops = shops[:cfg.Replicas] // List sorts by id: the same choice on every replica
	}
	id, err := s.runs.Create(ctx, cfg, agents, shops)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	s.writeRun(c, id, http.StatusCreated)
}

// validateRun checks req and resolves "all" into the strategies this
// replica can run. Each strategy goes through the same validation as POST
// /api/sales, so a run fails here rather than at its third step.
func (s *Server) validateRun(req runRequest) (runs.Config, error) {
	var cfg runs.Config
	if req.spec.Strategy == nil || *req.spec.Strategy == "" {
		return cfg, badField("strategy", "strategy is required: a name or %q", strategyAll)
	}
	cfg.Strategy = *req.spec.Strategy
	cfg.Strategies = []string{cfg.Strategy}
	if cfg.Strategy == strategyAll {
		cfg.Strategies = s.sales.Available()
	}
	cfg.Watchdog = req.spec.Watchdog == nil || *req.spec.Watchdog
	for _, name := range cfg.Strategies {
		r := req.spec
		r.Strategy = &name
		if cfg.Strategy == strategyAll {
			// Named, a strategy without a watchdog refuses watchdog:false;
			// among "all" it is simply left as it is.
			r.Watchdog = sale.LenientWatchdog(name, cfg.Watchdog)
		}
		valid, err := s.sales.Validate(r)
		if err != nil {
			return cfg, err
		}
		cfg.Stock, cfg.WorkMS, cfg.TTLMS = valid.InitialStock, valid.WorkMS, valid.TTLMS
		cfg.Fencing, cfg.PerUserLimit = valid.Fencing, valid.PerUserLimit
	}
	if req.Buyers == nil {
		return cfg, badField("buyers", "buyers is required (1..%d)", MaxRunBuyers)
	}
	if *req.Buyers < 1 || *req.Buyers > MaxRunBuyers {
		return cfg, badField("buyers", "buyers must be between 1 and %d", MaxRunBuyers)
	}
	cfg.Buyers = int(*req.Buyers)
	switch {
	case req.Rate != nil && req.Concurrency != nil:
		return cfg, badField("rate", "give concurrency (closed model) or rate (open model), not both")
	case req.Rate != nil:
		if !(*req.Rate > 0 && *req.Rate <= MaxRunRate) {
			return cfg, badField("rate", "rate must be above 0 and at most %d requests/s", MaxRunRate)
		}
		cfg.Rate = *req.Rate
	default:
		conc, err := sale.IntIn("concurrency", req.Concurrency, DefaultConcurrency, 1, MaxRunConcurrency)
		if err != nil {
			return cfg, err
		}
		cfg.Concurrency = conc
	}
	replicas, err := sale.IntIn("replicas", req.Replicas, 0, 0, MaxRunReplicas)
	if err != nil {
		return cfg, err
	}
	cfg.Replicas = replicas
	return cfg, nil
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
		e := badRequest("invalid_id", "%s must be a non-negative decimal integer, not %q", name, clip(raw))
		e.body.Field = name
		return 0, e
	}
	return n, nil
}
