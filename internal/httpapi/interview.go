package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/interview/interviewdb"
)

// getInterview is GET /api/interview: the interview path's questions with
// every figure filled from the newest run kept in this shop's database
// (lesson runs, verdict-matrix runs), each naming its run, or saying that
// this machine never measured it and which run to start.
func (s *Server) getInterview(c *gin.Context) {
	page, err := interview.Fill(c.Request.Context(), interviewdb.New(s.store.DB()), interview.Questions)
	if err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusOK, page)
}
