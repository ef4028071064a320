// Package runsapi serves the work the dashboard queues for the load-test
// agents, and the agents' own endpoints:
//
//   - runs.go: load-test runs (POST/GET /api/runs, GET /api/claims);
//   - lessons.go: the Lessons page's runs (/api/lessons, /api/lesson-runs)
//     and the lesson claim;
//   - agents.go: the agents' heartbeat, share claim and share report, and
//     the one check of every agent_id.
//
// httpapi mounts it with Register; errors go through wire's one map.
package runsapi

import (
	"log/slog"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Deps is what the routes serve from; every field is required.
type Deps struct {
	// DB holds discovery's rows: the live agents and shop replicas.
	DB *gorm.DB
	// Sales validates a run's sale.
	Sales *sale.Service
	// Runs keeps the load-test runs and the agents' shares.
	Runs *runs.Service
	// Lessons keeps the lesson runs.
	Lessons *lessondb.Store
	// Log receives errors only.
	Log *slog.Logger
	// Admin guards every writing route (the admin token's check).
	Admin gin.HandlerFunc
}

// server is the routes' handlers over Deps.
type server struct {
	db      *gorm.DB
	sales   *sale.Service
	runs    *runs.Service
	lessons *lessondb.Store
	log     *slog.Logger
	admin   gin.HandlerFunc
}

// Register adds the routes of runs, lessons and agents to api.
func Register(api *gin.RouterGroup, d Deps) {
	s := &server{db: d.DB, sales: d.Sales, runs: d.Runs, lessons: d.Lessons, log: d.Log, admin: d.Admin}
	s.runRoutes(api)
	s.lessonRoutes(api)
}
