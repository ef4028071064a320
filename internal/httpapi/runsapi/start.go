package runsapi

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Starter starts a lesson run or a run exactly as the dashboard's buttons
// do (POST /api/lessons/:name/runs, POST /api/runs): a class question's
// reveal runs through it (classroom.Starter).
type Starter struct{ s *server }

// NewStarter is a Starter over d.
func NewStarter(d Deps) Starter {
	return Starter{s: &server{db: d.DB, sales: d.Sales, runs: d.Runs, lessons: d.Lessons, log: d.Log, admin: d.Admin}}
}

// StartLesson queues lesson at pace for the agents; wire.ErrNoLessonAgents
// when none is alive, lessondb.ErrBusy when a run of it is on already.
func (st Starter) StartLesson(ctx context.Context, lesson, pace string) (uint64, error) {
	agents, _, err := st.s.members(ctx)
	if err != nil {
		return 0, err
	}
	if len(agents) == 0 {
		return 0, wire.ErrNoLessonAgents
	}
	run, err := st.s.lessons.Create(ctx, lesson, pace)
	if err != nil {
		return 0, wire.OrDBUnavailable(err)
	}
	return run.ID, nil
}

// CheckRun decodes and validates body as POST /api/runs does, for one
// strategy: a question asks what one strategy will do.
func (st Starter) CheckRun(body json.RawMessage) (runs.Config, error) {
	var spec runs.Spec
	if err := wire.DecodeObject(bytes.NewReader(body), runMembers(&spec)); err != nil {
		return runs.Config{}, err
	}
	cfg, err := runs.Validate(spec, st.s.sales)
	if err != nil {
		return cfg, err
	}
	if len(cfg.Strategies) != 1 {
		return cfg, sale.FieldErrorf("strategy", "a question asks what one strategy will do: name one, not %q", cfg.Strategy)
	}
	return cfg, nil
}

// StartRun starts the run body asks for (checked by CheckRun) on the live
// agents and replicas.
func (st Starter) StartRun(ctx context.Context, body json.RawMessage) (uint64, error) {
	cfg, err := st.CheckRun(body)
	if err != nil {
		return 0, err
	}
	return st.s.start(ctx, cfg)
}

// start stores a run of cfg on the live agents and replicas and starts
// its first step.
func (s *server) start(ctx context.Context, cfg runs.Config) (uint64, error) {
	agents, shops, err := s.members(ctx)
	if err != nil {
		return 0, err
	}
	targets, err := runs.Targets(cfg, agents, shops)
	if err != nil {
		return 0, err
	}
	return s.runs.Create(ctx, cfg, agents, targets)
}
