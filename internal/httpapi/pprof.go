package httpapi

import (
	"net/http/pprof"
	"strings"

	"github.com/gin-gonic/gin"
)

// pprofRoutes serves Go's profiler under /debug/pprof/ (net/http/pprof:
// the index, profile?seconds=, heap, goroutine, trace...) when the replica
// was started with Deps.Pprof (SECKILL_PPROF=on), behind the admin token
// when one is set: a profile shows the code and its data, and a CPU
// profile costs the replica while it runs.
func (s *Server) pprofRoutes(e *gin.Engine) {
	e.GET("/debug/pprof/*name", s.requireAdmin, func(c *gin.Context) {
		switch name := strings.TrimPrefix(c.Param("name"), "/"); name {
		case "cmdline":
			pprof.Cmdline(c.Writer, c.Request)
		case "profile":
			pprof.Profile(c.Writer, c.Request)
		case "symbol":
			pprof.Symbol(c.Writer, c.Request)
		case "trace":
			pprof.Trace(c.Writer, c.Request)
		case "":
			pprof.Index(c.Writer, c.Request)
		default:
			pprof.Handler(name).ServeHTTP(c.Writer, c.Request)
		}
	})
}
