package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// errEmptyRun is a Create without agents, targets, strategies or buyers: a
// caller's mistake, not a client's (the API checks them first).
var errEmptyRun = errors.New("runs: a run needs agents, targets, strategies and buyers")

// Service keeps runs in the database. It is safe for concurrent use, and
// any number of replicas may run one over the same database.
type Service struct {
	db    *gorm.DB
	sales Sales
}

// New returns a Service over db that creates each step's sale with sales.
func New(db *gorm.DB, sales Sales) *Service {
	return &Service{db: db, sales: sales}
}

// Create stores a run of cfg with one share per agent (the agents alive now)
// aimed at targets (the shop replicas chosen), and starts its first step.
// The step's buyers (and rate) are split as evenly as possible.
func (s *Service) Create(ctx context.Context, cfg Config, agents, targets []string) (uint64, error) {
	if len(agents) == 0 || len(targets) == 0 || len(cfg.Strategies) == 0 || cfg.Buyers < 1 {
		return 0, errEmptyRun
	}
	cfgJSON, _ := json.Marshal(cfg)
	targetsJSON, _ := json.Marshal(targets)
	run := runRow{Status: StatusQueued, Config: string(cfgJSON), Targets: string(targetsJSON),
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&run).Error; err != nil {
			return err
		}
		for i, strategy := range cfg.Strategies {
			if err := tx.Create(&stepRow{RunID: run.ID, Step: i, Strategy: strategy, Status: stepPending, Buyers: cfg.Buyers}).Error; err != nil {
				return err
			}
			for j, n := range split(cfg.Buyers, len(agents)) {
				share := shareRow{RunID: run.ID, Step: i, Share: j, Buyers: n, Errors: "{}", Done: n == 0,
					// Distinct per run, step and share: buyers of two shares
					// never share a user id, so per_user_limit means the same
					// as with one load generator.
					UserPrefix: fmt.Sprintf("r%d-s%d-h%d-", run.ID, i, j)}
				if err := tx.Create(&share).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("runs: create: %w", err)
	}
	return run.ID, s.advanceRun(ctx, run.ID)
}

// split divides n into k parts differing by at most one; parts may be 0
// when n < k (that share is done at once).
func split(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// dueSQL finds the runs with something to do: queued ones, and running ones
// whose current step has every share done or is past its deadline.
const dueSQL = `SELECT r.id FROM runs r
JOIN run_steps st ON st.run_id = r.id AND st.step = r.current_step
WHERE r.status IN ('queued', 'running') AND (st.status = 'pending'
  OR st.deadline < UTC_TIMESTAMP(6)
  OR NOT EXISTS (SELECT 1 FROM run_shares sh WHERE sh.run_id = st.run_id AND sh.step = st.step AND NOT sh.done))`

// Advance moves every due run on: closes finished steps, starts the next
// ones (creating their sales), and marks runs done. Cheap when nothing is
// due (one indexed query), so every claim and report calls it.
func (s *Service) Advance(ctx context.Context) error {
	var ids []uint64
	if err := s.db.WithContext(ctx).Raw(dueSQL).Scan(&ids).Error; err != nil {
		return fmt.Errorf("runs: advance: %w", err)
	}
	var errs []error
	for _, id := range ids {
		errs = append(errs, s.advanceRun(ctx, id))
	}
	return errors.Join(errs...)
}

// advanceRun moves run id on, under a row lock on the run: two replicas
// noticing the same finished step at once must not both start the next one
// (that would create two sales for it).
func (s *Service) advanceRun(ctx context.Context, id uint64) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var run runRow
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&run, id).Error; err != nil {
			return fmt.Errorf("runs: lock run %d: %w", id, err)
		}
		for run.Status == StatusQueued || run.Status == StatusRunning {
			var st stepRow
			if err := tx.Where("run_id = ? AND step = ?", id, run.CurrentStep).First(&st).Error; err != nil {
				return fmt.Errorf("runs: step %d of run %d: %w", run.CurrentStep, id, err)
			}
			switch st.Status {
			case stepPending:
				return s.startStep(ctx, tx, &run, st)
			case stepRunning:
				finished, err := stepFinished(tx, st)
				if err != nil || !finished {
					return err
				}
				if err := tx.Exec("UPDATE run_steps SET status = 'done', finished_at = UTC_TIMESTAMP(6) WHERE run_id = ? AND step = ?",
					id, st.Step).Error; err != nil {
					return err
				}
			}
			// The current step is done: on to the next, or the run is over.
			var steps int64
			if err := tx.Model(&stepRow{}).Where("run_id = ?", id).Count(&steps).Error; err != nil {
				return err
			}
			if int64(run.CurrentStep+1) >= steps {
				return tx.Exec("UPDATE runs SET status = 'done', finished_at = UTC_TIMESTAMP(6) WHERE id = ?", id).Error
			}
			run.CurrentStep++
			if err := tx.Exec("UPDATE runs SET current_step = ? WHERE id = ?", run.CurrentStep, id).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// stepFinished: every share done, or the deadline passed (database clock).
func stepFinished(tx *gorm.DB, st stepRow) (bool, error) {
	var open, late int64
	err := tx.Raw(`SELECT
  (SELECT COUNT(*) FROM run_shares WHERE run_id = ? AND step = ? AND NOT done),
  (SELECT COUNT(*) FROM run_steps WHERE run_id = ? AND step = ? AND deadline < UTC_TIMESTAMP(6))`,
		st.RunID, st.Step, st.RunID, st.Step).Row().Scan(&open, &late)
	return open == 0 || late > 0, err
}

// startStep creates the step's sale and opens its shares for claims. A sale
// that cannot be made fails the run: the strategy's backend is down, and
// the next steps would compare against a hole.
func (s *Service) startStep(ctx context.Context, tx *gorm.DB, run *runRow, st stepRow) error {
	var cfg Config
	if err := json.Unmarshal([]byte(run.Config), &cfg); err != nil {
		return fmt.Errorf("runs: config of run %d: %w", run.ID, err)
	}
	sale, err := s.sales.Create(ctx, StepSpec(st.Strategy, cfg))
	if err != nil {
		msg := fmt.Sprintf("step %d (%s): create sale: %v", st.Step, st.Strategy, err)
		if len(msg) > 255 {
			msg = msg[:252] + "..."
		}
		return tx.Exec("UPDATE runs SET status = 'failed', error = ?, finished_at = UTC_TIMESTAMP(6) WHERE id = ?",
			strings.ToValidUTF8(msg, "?"), run.ID).Error
	}
	// The buyers wait for the opening: the step's first deadline waits too.
	deadlineUS := (StepDeadline(st.Buyers) + time.Duration(cfg.OpensInMS)*time.Millisecond).Microseconds()
	if err := tx.Exec(`UPDATE run_steps SET status = 'running', sale_id = ?, started_at = UTC_TIMESTAMP(6),
  deadline = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND WHERE run_id = ? AND step = ?`,
		sale.ID, deadlineUS, run.ID, st.Step).Error; err != nil {
		return err
	}
	return tx.Exec("UPDATE runs SET status = 'running', started_at = COALESCE(started_at, UTC_TIMESTAMP(6)) WHERE id = ?", run.ID).Error
}
