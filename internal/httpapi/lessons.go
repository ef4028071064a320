package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/lessons"
	"github.com/seckill-lab/seckill/internal/lessons/lessondb"
)

// lessonRoutes serves the Lessons page's API. The dashboard queues a run;
// a load-test agent claims it (one lesson at a time, cluster-wide), runs
// the scenario against the live replicas and posts the verdict back.
func (s *Server) lessonRoutes(api *gin.RouterGroup) {
	api.GET("/lessons", s.listLessons)
	api.POST("/lessons/:name/runs", s.requireAdmin, s.createLessonRun)
	api.GET("/lesson-runs/:id", s.getLessonRun)
	api.POST("/lesson-runs/:id/result", s.requireAdmin, s.lessonResult) // agents carry the token too
	api.POST("/agents/lesson-claim", s.requireAdmin, s.claimLesson)
}

// lessonView is a catalogue entry with its newest run.
type lessonView struct {
	lessons.Lesson
	Last *lessons.Run `json:"last"`
}

func (s *Server) listLessons(c *gin.Context) {
	ctx := c.Request.Context()
	last, err := s.lessons.Last(ctx)
	if err != nil {
		writeError(c, s.log, fmt.Errorf("%w: %w", errDBUnavailable, err))
		return
	}
	agents, _, err := s.liveMembers(c)
	if err != nil {
		return
	}
	views := make([]lessonView, 0, len(lessons.Catalogue))
	for _, l := range lessons.Catalogue {
		v := lessonView{Lesson: l}
		if r, ok := last[l.Name]; ok {
			v.Last = &r
		}
		views = append(views, v)
	}
	c.JSON(http.StatusOK, gin.H{"lessons": views, "agents": len(agents)})
}

// createLessonRun is POST /api/lessons/:name/runs; the name "all" queues
// every lesson not already queued, in catalogue order.
func (s *Server) createLessonRun(c *gin.Context) {
	name := c.Param("name")
	if _, ok := lessons.Find(name); !ok && name != "all" {
		writeError(c, s.log, notFound("name", "no lesson %q; GET /api/lessons lists them", clip.Input(name)))
		return
	}
	agents, _, err := s.liveMembers(c)
	if err != nil {
		return
	}
	if len(agents) == 0 {
		writeError(c, s.log, errNoLessonAgents)
		return
	}
	ctx := c.Request.Context()
	if name != "all" {
		run, err := s.lessons.Create(ctx, name)
		if err != nil {
			writeError(c, s.log, orDBUnavailable(err))
			return
		}
		c.JSON(http.StatusAccepted, run)
		return
	}
	var queued []lessons.Run
	for _, l := range lessons.Catalogue {
		run, err := s.lessons.Create(ctx, l.Name)
		if errors.Is(err, lessondb.ErrBusy) {
			continue
		}
		if err != nil {
			writeError(c, s.log, orDBUnavailable(err))
			return
		}
		queued = append(queued, run)
	}
	if len(queued) == 0 {
		writeError(c, s.log, lessondb.ErrBusy)
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"runs": queued})
}

func (s *Server) getLessonRun(c *gin.Context) {
	id, err := pathInt(c, "id")
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	run, err := s.lessons.Get(c.Request.Context(), uint64(id))
	if err != nil {
		writeError(c, s.log, orDBUnavailable(err))
		return
	}
	c.JSON(http.StatusOK, run)
}

// claimLesson is POST /api/agents/lesson-claim {"agent_id"}: 200 {"run",
// "targets"} with the live shop replicas to run it against, or 204.
func (s *Server) claimLesson(c *gin.Context) {
	id, ok := s.claimBody(c)
	if !ok {
		return
	}
	_, shops, err := s.liveMembers(c)
	if err != nil {
		return
	}
	if len(shops) == 0 {
		c.Status(http.StatusNoContent)
		return
	}
	run, ok, err := s.lessons.Claim(c.Request.Context(), id)
	if err != nil {
		writeError(c, s.log, fmt.Errorf("%w: %w", errDBUnavailable, err))
		return
	}
	if !ok {
		c.Status(http.StatusNoContent)
		return
	}
	c.JSON(http.StatusOK, gin.H{"run": run, "targets": shops})
}

// lessonResult is POST /api/lesson-runs/:id/result {"agent_id", "verdict",
// "observed", "output"} from the agent that claimed the run.
func (s *Server) lessonResult(c *gin.Context) {
	id, err := pathInt(c, "id")
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	var agentArg, verdict, observed, output *string
	if err := decodeObject(c.Request.Body, map[string]any{"agent_id": &agentArg, "verdict": &verdict,
		"observed": &observed, "output": &output}); err != nil {
		writeError(c, s.log, err)
		return
	}
	agent, err := agentID(agentArg)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	if verdict == nil || *verdict == "" {
		writeError(c, s.log, badField("verdict", "verdict is required"))
		return
	}
	if err := s.lessons.Finish(c.Request.Context(), uint64(id), agent, *verdict, deref(observed), deref(output)); err != nil {
		writeError(c, s.log, orDBUnavailable(err))
		return
	}
	c.Status(http.StatusNoContent)
}

// liveMembers lists the live agents' ids and shops' URLs (sorted by id, the
// same on every replica); on error it has already answered.
func (s *Server) liveMembers(c *gin.Context) (agents, shops []string, err error) {
	members, err := discovery.List(c.Request.Context(), s.store.DB())
	if err != nil {
		writeError(c, s.log, fmt.Errorf("%w: %w", errDBUnavailable, err))
		return nil, nil, err
	}
	for _, m := range members {
		switch {
		case m.Kind == discovery.KindAgent:
			agents = append(agents, m.ID)
		case m.Kind == discovery.KindShop && m.URL != "":
			shops = append(shops, m.URL)
		}
	}
	return agents, shops, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
