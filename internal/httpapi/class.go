package httpapi

import (
	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/classapi"
	"github.com/seckill-lab/seckill/internal/httpapi/runsapi"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// VoteRateIP is how many votes a second one client address may send, all
// questions together: a class of phones each on its own address votes
// freely, a script flooding from one is refused with 429.
const VoteRateIP = 10

// voteScope is the votes' budgets in the per-client limiter.
const voteScope = "vote"

// classRoutes mounts a class's predictions (package classapi), with the
// vote page's link and QR code (share.go).
func (s *Server) classRoutes(api *gin.RouterGroup, starter runsapi.Starter) {
	classapi.Register(api, classapi.Deps{Store: s.class, Starter: starter, Lessons: s.lessons, Runs: s.runs, Log: s.log,
		Admin: s.requireAdmin, LimitVotes: s.limitVotes})
	api.GET("/class/questions/:id/share", s.getQuestionShare)
	api.GET("/class/questions/:id/qr.png", s.getQuestionQR) // the same link as a QR code
}

// limitVotes holds each client address to VoteRateIP votes a second (429
// rate_limited beyond it).
func (s *Server) limitVotes(c *gin.Context) {
	if err := s.orderLimits.CheckClient(c.Request.Context(), voteScope, VoteRateIP, s.clientIP(c)); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.Next()
}
