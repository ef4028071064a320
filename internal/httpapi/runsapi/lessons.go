package runsapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// lessonRoutes serves the Lessons page's API. The dashboard queues a run;
// a load-test agent claims it (one lesson at a time, cluster-wide), runs
// the scenario against the live replicas and posts the verdict back.
func (s *server) lessonRoutes(api *gin.RouterGroup) {
	api.GET("/lessons", s.listLessons)
	api.POST("/lessons/:name/runs", s.admin, s.createLessonRun)
	api.GET("/lesson-runs/:id", s.getLessonRun)
	api.POST("/lesson-runs/:id/result", s.admin, s.lessonResult) // agents carry the token too
	api.POST("/lesson-runs/:id/sales", s.admin, s.lessonSales)
	api.POST("/agents/lesson-claim", s.admin, s.claimLesson)
}

// lessonView is a catalogue entry with its newest run.
type lessonView struct {
	catalogue.Lesson
	Last *catalogue.Run `json:"last"`
}

// lessonRunView is a lesson's name and newest run alone: the dashboard's
// poll (?only=runs), which has the catalogue's texts from its first read.
type lessonRunView struct {
	Name string         `json:"name"`
	Last *catalogue.Run `json:"last"`
}

// listLessons is GET /api/lessons: the catalogue with each lesson's newest
// run, the live agents and the seeds' points no lesson runs (not_taught);
// with ?only=runs, each lesson's name and newest
// run alone (the texts, a twentieth of a megabyte in two languages, do not
// change between two polls).
func (s *server) listLessons(c *gin.Context) {
	only := c.Query("only")
	if only != "" && only != "runs" {
		wire.WriteError(c, s.log, wire.BadField("only", "only must be runs or absent, got %q", clip.Input(only)))
		return
	}
	ctx := c.Request.Context()
	last, err := s.lessons.Last(ctx)
	if err != nil {
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	agents, _, err := s.liveMembers(c)
	if err != nil {
		return
	}
	if only == "runs" {
		runs := make([]lessonRunView, 0, len(catalogue.Catalogue))
		for _, l := range catalogue.Catalogue {
			v := lessonRunView{Name: l.Name}
			if r, ok := last[l.Name]; ok {
				v.Last = &r
			}
			runs = append(runs, v)
		}
		c.JSON(http.StatusOK, gin.H{"lessons": runs, "agents": len(agents)})
		return
	}
	views := make([]lessonView, 0, len(catalogue.Catalogue))
	for _, l := range catalogue.Catalogue {
		v := lessonView{Lesson: l}
		if r, ok := last[l.Name]; ok {
			v.Last = &r
		}
		views = append(views, v)
	}
	c.JSON(http.StatusOK, gin.H{"lessons": views, "agents": len(agents), "not_taught": catalogue.NotTaught})
}

// createLessonRun is POST /api/lessons/:name/runs with an optional body
// {"pace": "normal"|"class"}; the name "all" queues every lesson not
// already queued, in catalogue order.
func (s *server) createLessonRun(c *gin.Context) {
	name := c.Param("name")
	if _, ok := catalogue.Find(name); !ok && name != "all" {
		wire.WriteError(c, s.log, wire.NotFound("name", "no lesson %q; GET /api/lessons lists them", clip.Input(name)))
		return
	}
	pace, err := lessonPace(c.Request.Body)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	agents, _, err := s.liveMembers(c)
	if err != nil {
		return
	}
	if len(agents) == 0 {
		wire.WriteError(c, s.log, wire.ErrNoLessonAgents)
		return
	}
	ctx := c.Request.Context()
	if name != "all" {
		run, err := s.lessons.Create(ctx, name, pace)
		if err != nil {
			wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
			return
		}
		c.JSON(http.StatusAccepted, run)
		return
	}
	var queued []catalogue.Run
	for _, l := range catalogue.Catalogue {
		run, err := s.lessons.Create(ctx, l.Name, pace)
		if errors.Is(err, lessondb.ErrBusy) {
			continue
		}
		if err != nil {
			wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
			return
		}
		queued = append(queued, run)
	}
	if len(queued) == 0 {
		wire.WriteError(c, s.log, lessondb.ErrBusy)
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"runs": queued})
}

// lessonPace reads the optional body of a lesson run's creation: no body
// (or an empty one) is the normal pace.
func lessonPace(body io.Reader) (string, error) {
	var pace *string
	if err := wire.DecodeOptional(body, map[string]any{"pace": &pace}); err != nil {
		return "", err
	}
	if pace == nil || *pace == "" {
		return catalogue.PaceNormal, nil
	}
	if !catalogue.ValidPace(*pace) {
		return "", wire.BadField("pace", "pace must be %q or %q, not %q", catalogue.PaceNormal, catalogue.PaceClass, clip.Input(*pace))
	}
	return *pace, nil
}

func (s *server) getLessonRun(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	run, err := s.lessons.Get(c.Request.Context(), uint64(id))
	if err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	c.JSON(http.StatusOK, run)
}

// claimLesson is POST /api/agents/lesson-claim {"agent_id"}: 200 {"run",
// "targets"} with the live shop replicas to run it against, or 204.
func (s *server) claimLesson(c *gin.Context) {
	id, ok := s.agentBody(c, map[string]any{})
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
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	if !ok {
		c.Status(http.StatusNoContent)
		return
	}
	c.JSON(http.StatusOK, gin.H{"run": run, "targets": shops})
}

// lessonResult is POST /api/lesson-runs/:id/result {"agent_id", "verdict",
// "observed", "output", "cases", "sales"} from the agent that claimed the
// run.
func (s *server) lessonResult(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	var verdict, observed, output *string
	var cases catalogue.Cases
	var sales catalogue.SaleIDs
	agent, ok := s.agentBody(c, map[string]any{"verdict": &verdict,
		"observed": &observed, "output": &output, "cases": &cases, "sales": &sales})
	if !ok {
		return
	}
	if verdict == nil || *verdict == "" {
		wire.WriteError(c, s.log, wire.BadField("verdict", "verdict is required"))
		return
	}
	if len(cases) > maxLessonCases {
		wire.WriteError(c, s.log, wire.BadField("cases", "at most %d cases", maxLessonCases))
		return
	}
	if len(sales) > maxLessonSales {
		wire.WriteError(c, s.log, wire.BadField("sales", "at most %d sales", maxLessonSales))
		return
	}
	res := lessondb.Result{Verdict: *verdict, Observed: wire.Deref(observed), Output: wire.Deref(output), Cases: cases, Sales: sales}
	if err := s.lessons.Finish(c.Request.Context(), uint64(id), agent, res); err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	c.Status(http.StatusNoContent)
}

// A lesson creates a few sales (the most, queue-durability, six); these
// bound what an agent may report.
const (
	maxLessonSales = 64
	maxLessonCases = 64
)

// lessonSales is POST /api/lesson-runs/:id/sales {"agent_id", "sales",
// "next"}: the sales the running lesson created so far, in order, from the
// agent that runs it, and optionally what its next case shows, in English
// and Chinese, and when it starts (the class pace's pause between cases).
// The dashboard's band follows the newest sale; the lesson's card says the
// next case until it starts.
func (s *server) lessonSales(c *gin.Context) {
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	var sales catalogue.SaleIDs
	var rawNext json.RawMessage
	agent, ok := s.agentBody(c, map[string]any{"sales": &sales, "next": &rawNext})
	if !ok {
		return
	}
	if sales == nil {
		wire.WriteError(c, s.log, wire.BadField("sales", "sales is required: the ids of the sales the lesson created"))
		return
	}
	if len(sales) > maxLessonSales {
		wire.WriteError(c, s.log, wire.BadField("sales", "at most %d sales", maxLessonSales))
		return
	}
	next, err := lessonNext(rawNext, time.Now())
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	if err := s.lessons.SetProgress(c.Request.Context(), uint64(id), agent, sales, next); err != nil {
		wire.WriteError(c, s.log, wire.OrDBUnavailable(err))
		return
	}
	c.Status(http.StatusNoContent)
}

// MaxNextChars bounds each language's sentence of a lesson's next case
// (the scenarios' longest is about 110 characters).
const MaxNextChars = 300

// lessonNext reads the optional "next" member of a lesson's sales report:
// absent or null is nil (the recorded one stays), else an object with
// "en" and "zh" (1-300 characters each, one line) and "at", an RFC 3339
// time within catalogue.RunTimeout of now. Errors name the member at fault
// ("next.en", "next.at").
func lessonNext(raw json.RawMessage, now time.Time) (*catalogue.Next, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, wire.BadField("next", "next must be an object {\"en\", \"zh\", \"at\"}, not %s", wire.DescribeJSON(raw))
	}
	var en, zh, at *string
	if err := wire.DecodeObject(bytes.NewReader(raw), map[string]any{"en": &en, "zh": &zh, "at": &at}); err != nil {
		var ae *wire.Error
		if errors.As(err, &ae) {
			inner := *ae
			inner.Body.Field = "next"
			if ae.Body.Field != "" {
				inner.Body.Field = "next." + ae.Body.Field
			}
			return nil, &inner
		}
		return nil, err
	}
	var n catalogue.Next
	for _, t := range []struct {
		name string
		v    *string
		into *string
	}{{"en", en, &n.En}, {"zh", zh, &n.Zh}} {
		field := "next." + t.name
		switch {
		case t.v == nil || strings.TrimSpace(*t.v) == "":
			return nil, wire.BadField(field, "%s is required: the next case in words", field)
		case utf8.RuneCountInString(*t.v) > MaxNextChars:
			return nil, wire.BadField(field, "%s must be at most %d characters, not %d", field, MaxNextChars, utf8.RuneCountInString(*t.v))
		case strings.IndexFunc(*t.v, unicode.IsControl) >= 0:
			return nil, wire.BadField(field, "%s must be one line, without control characters", field)
		}
		*t.into = *t.v
	}
	if at == nil || *at == "" {
		return nil, wire.BadField("next.at", "next.at is required: when the next case starts (RFC 3339)")
	}
	when, err := time.Parse(time.RFC3339Nano, *at)
	if err != nil {
		return nil, wire.BadField("next.at", "next.at must be an RFC 3339 time such as 2026-11-26T10:00:08Z, not %q", clip.Input(*at))
	}
	if d := when.Sub(now); d > catalogue.RunTimeout || d < -catalogue.RunTimeout {
		return nil, wire.BadField("next.at", "next.at must be within %v of this replica's clock, not %v away", catalogue.RunTimeout, d.Round(time.Second))
	}
	n.At = when.UTC()
	return &n, nil
}

// liveMembers lists the live agents' ids and shops' URLs (sorted by id, the
// same on every replica); on error it has already answered.
func (s *server) liveMembers(c *gin.Context) (agents, shops []string, err error) {
	agents, shops, err = s.members(c.Request.Context())
	if err != nil {
		wire.WriteError(c, s.log, err)
	}
	return agents, shops, err
}

// members are the live agents and shop replicas (their URLs).
func (s *server) members(ctx context.Context) (agents, shops []string, err error) {
	members, err := discovery.List(ctx, s.db)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err)
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
