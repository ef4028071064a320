package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/runs"
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
	sale        createSaleRequest
	Buyers      *int64
	Concurrency *int64
	Rate        *float64
	Replicas    *int64
}

func (r *runRequest) members() map[string]any {
	m := r.sale.members()
	delete(m, "name") // a run names its sales itself
	m["buyers"], m["concurrency"], m["rate"], m["replicas"] = &r.Buyers, &r.Concurrency, &r.Rate, &r.Replicas
	return m
}

// runRoutes adds the routes of runs, agents and events and builds the runs
// service over this replica's store.
func (s *Server) runRoutes(api *gin.RouterGroup) {
	s.runs = runs.New(s.store.DB(), s.makeRunSale)
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
		writeError(c, s.log, &apiError{status: http.StatusConflict, body: errorBody{Error: "no_agents",
			Message: "no load-test agent is alive; start one with `loadtest agent --shop URL`"}})
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
	if req.sale.Strategy == nil || *req.sale.Strategy == "" {
		return cfg, badField("strategy", "strategy is required: a name or %q", strategyAll)
	}
	cfg.Strategy = *req.sale.Strategy
	cfg.Strategies = []string{cfg.Strategy}
	if cfg.Strategy == strategyAll {
		cfg.Strategies = s.availableNames()
	}
	cfg.Watchdog = req.sale.Watchdog == nil || *req.sale.Watchdog
	for _, name := range cfg.Strategies {
		r := req.sale
		r.Strategy = &name
		if cfg.Strategy == strategyAll {
			// Named, a strategy without a watchdog refuses watchdog:false;
			// among "all" it is simply left as it is.
			r.Watchdog = runWatchdog(name, cfg.Watchdog)
		}
		sale, err := s.validateSale(r)
		if err != nil {
			return cfg, err
		}
		cfg.Stock, cfg.WorkMS, cfg.TTLMS = sale.InitialStock, sale.WorkMS, sale.TTLMS
		cfg.Fencing, cfg.PerUserLimit = sale.Fencing, sale.PerUserLimit
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
		conc, err := intIn("concurrency", req.Concurrency, DefaultConcurrency, 1, MaxRunConcurrency)
		if err != nil {
			return cfg, err
		}
		cfg.Concurrency = conc
	}
	replicas, err := intIn("replicas", req.Replicas, 0, 0, MaxRunReplicas)
	if err != nil {
		return cfg, err
	}
	cfg.Replicas = replicas
	return cfg, nil
}

// makeRunSale creates the sale of one step exactly as POST /api/sales would.
func (s *Server) makeRunSale(ctx context.Context, strategy string, cfg runs.Config) (uint64, error) {
	stock, work, ttl, limit := cfg.Stock, int64(cfg.WorkMS), int64(cfg.TTLMS), int64(cfg.PerUserLimit)
	name := "run " + strategy
	sale, err := s.validateSale(createSaleRequest{Name: &name, Strategy: &strategy, Stock: &stock,
		WorkMS: &work, TTLMS: &ttl, Fencing: &cfg.Fencing, Watchdog: runWatchdog(strategy, cfg.Watchdog),
		PerUserLimit: &limit})
	if err != nil {
		return 0, err
	}
	if err := s.insertSale(ctx, &sale); err != nil {
		return 0, err
	}
	return sale.ID, nil
}

// runWatchdog is a run's watchdog switch as one step's sale takes it: off
// only for a strategy whose lease renews itself. With "all", watchdog:false
// thus turns off the watchdogs there are and leaves the other steps as they
// are (nil: the default).
func runWatchdog(strategy string, watchdog bool) *bool {
	if st, err := lockstrategy.Lookup(strategy); watchdog || err != nil || !st.Renews {
		return nil
	}
	return &watchdog
}

// listRuns is GET /api/runs: the newest runs first.
func (s *Server) listRuns(c *gin.Context) {
	views, err := s.runs.List(c.Request.Context(), runListLimit)
	if err != nil {
		writeError(c, s.log, runError(err))
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
		writeError(c, s.log, runError(err))
		return
	}
	c.JSON(status, v)
}

// runError renders the runs package's sentinels; anything else is left to
// the one map (a 500 whose text is logged).
func runError(err error) error {
	switch {
	case errors.Is(err, runs.ErrNotFound):
		return &apiError{status: http.StatusNotFound, body: errorBody{Error: "not_found", Message: "no such run, step or share"}}
	case errors.Is(err, runs.ErrNotYours):
		return &apiError{status: http.StatusConflict, body: errorBody{Error: "not_yours", Message: "another agent holds this share"}}
	case errors.Is(err, runs.ErrInvalid):
		return badRequest("invalid_report", "%s", clip(strings.TrimPrefix(err.Error(), "runs: ")))
	}
	return err
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
