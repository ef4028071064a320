// Package interviewapi serves the interview path (package interview):
// GET /api/interview, every question with its figures filled from the
// newest runs kept in the shop's database (interviewdb), each naming its
// run, or said unmeasured here. A read: no token. httpapi mounts it with
// Register.
package interviewapi

import (
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/interview/interviewdb"
)

// Register adds GET /interview to api, reading db.
func Register(api *gin.RouterGroup, db *gorm.DB, log *slog.Logger) {
	api.GET("/interview", func(c *gin.Context) {
		page, err := interview.Fill(c.Request.Context(), interviewdb.New(db), interview.Questions)
		if err != nil {
			wire.WriteError(c, log, wire.OrDBUnavailable(err))
			return
		}
		c.JSON(http.StatusOK, page)
	})
}
