// Package classapi serves a class's predictions (package classroom): the
// trainer opens questions and reveals them (admin), phones vote (no token:
// a vote is anonymous and bounded, like an order; limited per address),
// anyone reads them (the tally only once revealed). httpapi mounts it with
// Register, and serves the vote page, its link and its QR code itself.
package classapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/classroom"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/runs"
)

// Deps is what the routes serve from; every field is required.
type Deps struct {
	Store   *classroom.Store
	Starter Starter
	// Lessons and Runs are read for what a revealed question's run showed.
	Lessons *lessondb.Store
	Runs    *runs.Service
	Log     *slog.Logger
	// Admin guards the trainer's writes; LimitVotes holds each client
	// address to a budget of votes (429 beyond it).
	Admin, LimitVotes gin.HandlerFunc
}

// Starter checks a question's run and starts what a reveal starts
// (runsapi.Starter).
type Starter interface {
	classroom.Starter
	CheckRun(body json.RawMessage) (runs.Config, error)
}

type server struct{ Deps }

// Register adds the class routes to api.
func Register(api *gin.RouterGroup, d Deps) {
	s := &server{d}
	api.GET("/class/cases", s.listCases)
	api.POST("/class/sessions", s.Admin, s.createClassSession)
	api.GET("/class/sessions", s.listClassSessions)
	api.GET("/class/sessions/:id", s.getClassSession)
	api.GET("/class/sessions/:id/export.csv", s.exportClassSession)
	api.POST("/class/sessions/:id/questions", s.Admin, s.askClass)
	api.GET("/class/questions/:id", s.getQuestion)
	api.PUT("/class/questions/:id/vote", s.LimitVotes, s.vote)
	api.POST("/class/questions/:id/reveal", s.Admin, s.reveal)
}

// lessonCases is a lesson as the question form lists it: its title and
// its cases' setups, in the order its scenario runs them.
type lessonCases struct {
	Lesson  string            `json:"lesson"`
	Title   string            `json:"title"`
	TitleZh string            `json:"title_zh"`
	Cases   []catalogue.Texts `json:"cases"`
}

// listCases is GET /api/class/cases: every lesson's cases a class can be
// asked, in the catalogue's order.
func (s *server) listCases(c *gin.Context) {
	out := make([]lessonCases, 0, len(catalogue.Catalogue))
	for _, l := range catalogue.Catalogue {
		v := lessonCases{Lesson: l.Name, Title: l.Title, TitleZh: l.TitleZh, Cases: []catalogue.Texts{}}
		for _, q := range catalogue.CaseQuestions(l.Name) {
			v.Cases = append(v.Cases, q.Setup)
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, gin.H{"lessons": out})
}

// createClassSession is POST /api/class/sessions {"title"?}.
func (s *server) createClassSession(c *gin.Context) {
	var title *string
	if err := wire.DecodeOptional(c.Request.Body, map[string]any{"title": &title}); err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	sess, err := s.Store.CreateSession(c.Request.Context(), wire.Deref(title))
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusCreated, sess)
}

// listClassSessions is GET /api/class/sessions: the newest, without their
// questions.
func (s *server) listClassSessions(c *gin.Context) {
	list, err := s.Store.Sessions(c.Request.Context())
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusOK, gin.H{"sessions": list})
}

// getClassSession is GET /api/class/sessions/:id: the session with its
// questions, each revealed one with what its run showed.
func (s *server) getClassSession(c *gin.Context) {
	if sess, ok := s.classSession(c); ok {
		c.JSON(http.StatusOK, sess)
	}
}

// exportClassSession is GET /api/class/sessions/:id/export.csv.
func (s *server) exportClassSession(c *gin.Context) {
	sess, ok := s.classSession(c)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := classroom.WriteCSV(&buf, sess); err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	c.Header("Content-Disposition", fmt.Sprintf(`attachment; filename="class-session-%d.csv"`, sess.ID))
	c.Data(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

func (s *server) classSession(c *gin.Context) (classroom.Session, bool) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.Log, err)
		return classroom.Session{}, false
	}
	sess, err := s.Store.Session(c.Request.Context(), uint64(id))
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return sess, false
	}
	for i := range sess.Questions {
		s.observe(c, &sess.Questions[i])
	}
	return sess, true
}

// askClass is POST /api/class/sessions/:id/questions: {"lesson", "case"}
// (a lesson's case, 1-based) or {"run": <the body of POST /api/runs>},
// with "pace" (lessons: class by default), "minutes" and "max_votes".
func (s *server) askClass(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	var lesson, pace *string
	var caseN, minutes, maxVotes *int
	var run *json.RawMessage
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"lesson": &lesson, "case": &caseN, "run": &run,
		"pace": &pace, "minutes": &minutes, "max_votes": &maxVotes}); err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	ask := classroom.Ask{Lesson: wire.Deref(lesson), Case: deref(caseN), Pace: wire.Deref(pace), Minutes: deref(minutes), MaxVotes: deref(maxVotes)}
	if run != nil && string(*run) != "null" {
		cfg, err := s.Starter.CheckRun(*run)
		if err != nil {
			wire.WriteError(c, s.Log, err)
			return
		}
		ask.Run, ask.RunSetup = *run, classroom.RunSetup(cfg)
	}
	q, err := s.Store.Ask(c.Request.Context(), uint64(id), ask)
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusCreated, q)
}

// getQuestion is GET /api/class/questions/:id: the question, its vote
// count, and once revealed its tally and what its run showed.
func (s *server) getQuestion(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	q, err := s.Store.Question(c.Request.Context(), uint64(id))
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	s.observe(c, &q)
	c.JSON(http.StatusOK, q)
}

// vote is PUT /api/class/questions/:id/vote {"voter", "outcome"}: a
// phone's vote, or its change, until the reveal. It answers the count
// only, never the tally.
func (s *server) vote(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	var voter, outcome *string
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"voter": &voter, "outcome": &outcome}); err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	n, err := s.Store.Vote(c.Request.Context(), uint64(id), wire.Deref(voter), wire.Deref(outcome))
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusOK, gin.H{"question": id, "outcome": wire.Deref(outcome), "votes": n})
}

// reveal is POST /api/class/questions/:id/reveal: votes close, the run
// starts (a lesson at the question's pace, or the run as set up), the
// tally shows.
func (s *server) reveal(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.Log, err)
		return
	}
	q, err := s.Store.Reveal(c.Request.Context(), uint64(id), s.Starter)
	if err != nil {
		wire.WriteError(c, s.Log, wire.OrDBUnavailable(err))
		return
	}
	s.observe(c, &q)
	c.JSON(http.StatusOK, q)
}

// observe fills q's Observed from its run, once revealed; a run that
// cannot be read leaves it nil (the next read tries again).
func (s *server) observe(c *gin.Context, q *classroom.Question) {
	ctx := c.Request.Context()
	switch {
	case q.LessonRunID != nil:
		if run, err := s.Lessons.Get(ctx, *q.LessonRunID); err == nil {
			q.Observed = classroom.FromLessonRun(run, q.Case)
		}
	case q.RunID != nil:
		if v, err := s.Runs.View(ctx, *q.RunID); err == nil {
			q.Observed = classroom.FromRun(v)
		}
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
