// Package lessondb records lesson runs in the database (lesson_runs,
// migrations/0009): queued by the dashboard, claimed and reported by
// load-test agents. It is apart from package lessons so that the agent
// binary, which needs the catalogue and the Run type, carries no gorm.
package lessondb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// Errors of the store.
var (
	ErrUnknown  = errors.New("lessondb: no such lesson")
	ErrBusy     = errors.New("lessondb: a run of this lesson is already pending or running")
	ErrNotFound = errors.New("lessondb: no such run")
	ErrNotYours = errors.New("lessondb: the run is not running under this agent")
	ErrVerdict  = errors.New("lessondb: verdict must be PASS, FAIL, ERROR or SKIP")
	ErrPace     = errors.New("lessondb: pace must be normal or class")
	ErrNext     = errors.New("lessondb: next needs en, zh and at")
)

// Store keeps lesson runs in the database; any number of replicas may use
// one over the same database.
type Store struct{ db *gorm.DB }

// NewStore returns a Store over db (migrated).
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// Create queues a run of lesson at pace (catalogue.PaceNormal or
// catalogue.PaceClass); ErrBusy when one is pending or running.
func (s *Store) Create(ctx context.Context, lesson, pace string) (catalogue.Run, error) {
	if _, ok := catalogue.Find(lesson); !ok {
		return catalogue.Run{}, ErrUnknown
	}
	if !catalogue.ValidPace(pace) {
		return catalogue.Run{}, ErrPace
	}
	if err := s.expire(ctx); err != nil {
		return catalogue.Run{}, err
	}
	var run catalogue.Run
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var open int64
		// Locking read: two replicas queueing the same lesson at once
		// serialise here, and the second sees the first's row.
		if err := tx.Raw(`SELECT COUNT(*) FROM lesson_runs WHERE lesson = ? AND status IN ('pending','running') FOR UPDATE`,
			lesson).Scan(&open).Error; err != nil {
			return err
		}
		if open > 0 {
			return ErrBusy
		}
		run = catalogue.Run{Lesson: lesson, Status: catalogue.StatusPending, Pace: pace, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
		return tx.Create(&run).Error
	})
	if err != nil {
		if errors.Is(err, ErrBusy) {
			return catalogue.Run{}, err
		}
		return catalogue.Run{}, fmt.Errorf("lessondb: create: %w", err)
	}
	return s.Get(ctx, run.ID)
}

// Claim gives agentID the oldest pending run, unless a run is running
// already (lessons fault whole replicas: one at a time). ok is false when
// there is nothing to do.
func (s *Store) Claim(ctx context.Context, agentID string) (run catalogue.Run, ok bool, err error) {
	// Idle agents ask several times a second: a plain indexed read answers
	// them, without a transaction, locks or the expiry UPDATE.
	var pending int64
	if err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM lesson_runs WHERE status = 'pending'`).Scan(&pending).Error; err != nil {
		return catalogue.Run{}, false, fmt.Errorf("lessondb: claim: %w", err)
	}
	if pending == 0 {
		return catalogue.Run{}, false, nil
	}
	if err := s.expire(ctx); err != nil {
		return catalogue.Run{}, false, err
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var open []catalogue.Run
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Where("status IN ?", []string{catalogue.StatusPending, catalogue.StatusRunning}).
			Order("id").Find(&open).Error; err != nil {
			return err
		}
		for _, r := range open {
			if r.Status == catalogue.StatusRunning {
				return nil
			}
		}
		if len(open) == 0 {
			return nil
		}
		run = open[0]
		res := tx.Exec(`UPDATE lesson_runs SET status = 'running', agent_id = ?, started_at = UTC_TIMESTAMP(6),
  deadline = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND WHERE id = ? AND status = 'pending'`,
			agentID, catalogue.RunTimeout.Microseconds(), run.ID)
		if res.Error != nil {
			return res.Error
		}
		ok = res.RowsAffected == 1
		return nil
	})
	if err != nil {
		return catalogue.Run{}, false, fmt.Errorf("lessondb: claim: %w", err)
	}
	if !ok {
		return catalogue.Run{}, false, nil
	}
	run, err = s.Get(ctx, run.ID)
	return run, err == nil, err
}

// Result is what an agent reports when a lesson run ends.
type Result struct {
	Verdict  string
	Observed string // the one-line summary
	Output   string // the scenario's full output
	Cases    catalogue.Cases
	Sales    catalogue.SaleIDs // every sale the scenario created
}

// Finish records agentID's result for run id.
func (s *Store) Finish(ctx context.Context, id uint64, agentID string, r Result) error {
	switch r.Verdict {
	case catalogue.VerdictPass, catalogue.VerdictFail, catalogue.VerdictError, catalogue.VerdictSkip:
	default:
		return ErrVerdict
	}
	res := s.db.WithContext(ctx).Exec(`UPDATE lesson_runs SET status = 'done', verdict = ?, observed = ?, output = ?,
  cases = ?, sales = COALESCE(?, sales), next = NULL, finished_at = UTC_TIMESTAMP(6) WHERE id = ? AND status = 'running' AND agent_id = ?`,
		r.Verdict, clipText(r.Observed, 60000), clipText(r.Output, 1<<20), r.Cases, r.Sales, id, agentID)
	if res.Error != nil {
		return fmt.Errorf("lessondb: finish: %w", res.Error)
	}
	return s.mine(ctx, id, agentID, res.RowsAffected)
}

// SetSales records the sales run id created so far, while agentID runs it:
// the dashboard follows the newest.
func (s *Store) SetSales(ctx context.Context, id uint64, agentID string, sales catalogue.SaleIDs) error {
	return s.SetProgress(ctx, id, agentID, sales, nil)
}

// MaxNextText bounds each language's sentence of a lesson's next case, in
// bytes (the longest the scenarios say is about 200).
const MaxNextText = 1000

// SetProgress records, in one update while agentID runs run id, the sales
// it created so far and, when next is not nil, what the next case shows
// and when it starts (the dashboard says it during the pause before it;
// a nil next leaves the one recorded). Finish clears it.
func (s *Store) SetProgress(ctx context.Context, id uint64, agentID string, sales catalogue.SaleIDs, next *catalogue.Next) error {
	if sales == nil {
		sales = catalogue.SaleIDs{}
	}
	var nextJSON any // NULL: keep the recorded one
	if next != nil {
		if next.En == "" || next.Zh == "" || next.At.IsZero() {
			return ErrNext
		}
		n := catalogue.Next{En: clipText(next.En, MaxNextText), Zh: clipText(next.Zh, MaxNextText), At: next.At.UTC()}
		b, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("lessondb: next: %w", err)
		}
		nextJSON = string(b)
	}
	res := s.db.WithContext(ctx).Exec(`UPDATE lesson_runs SET sales = ?, next = COALESCE(?, next)
WHERE id = ? AND status = 'running' AND agent_id = ?`, sales, nextJSON, id, agentID)
	if res.Error != nil {
		return fmt.Errorf("lessondb: progress: %w", res.Error)
	}
	return s.mine(ctx, id, agentID, res.RowsAffected)
}

// mine checks an update of run id by agentID that changed no row: an
// update that wrote the values already there changes none either (MariaDB
// counts changed rows), which is fine while the run is agentID's;
// otherwise ErrNotFound (no such run) or ErrNotYours.
func (s *Store) mine(ctx context.Context, id uint64, agentID string, rows int64) error {
	if rows > 0 {
		return nil
	}
	run, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	if run.Status != catalogue.StatusRunning || run.AgentID == nil || *run.AgentID != agentID {
		return ErrNotYours
	}
	return nil
}

// Get returns run id.
func (s *Store) Get(ctx context.Context, id uint64) (catalogue.Run, error) {
	var run catalogue.Run
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&run).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return catalogue.Run{}, ErrNotFound
	}
	if err != nil {
		return catalogue.Run{}, fmt.Errorf("lessondb: get: %w", err)
	}
	return utc(run), nil
}

// Last returns the newest run of each lesson that has one.
func (s *Store) Last(ctx context.Context) (map[string]catalogue.Run, error) {
	if err := s.expire(ctx); err != nil {
		return nil, err
	}
	var rows []catalogue.Run
	err := s.db.WithContext(ctx).Where("id IN (SELECT MAX(id) FROM lesson_runs GROUP BY lesson)").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("lessondb: last: %w", err)
	}
	last := make(map[string]catalogue.Run, len(rows))
	for _, r := range rows {
		last[r.Lesson] = utc(r)
	}
	return last, nil
}

// expire closes runs whose agent never reported within catalogue.RunTimeout.
func (s *Store) expire(ctx context.Context) error {
	err := s.db.WithContext(ctx).Exec(`UPDATE lesson_runs SET status = 'done', verdict = 'ERROR',
  observed = 'the agent did not report within the run timeout (it died or lost the shop)', next = NULL,
  finished_at = UTC_TIMESTAMP(6)
WHERE status = 'running' AND deadline < UTC_TIMESTAMP(6)`).Error
	if err != nil {
		return fmt.Errorf("lessondb: expire: %w", err)
	}
	return nil
}

// clipText is s cut to at most n bytes, on a character boundary: the
// column refuses a string that ends inside a character.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// utc gives the row's times the UTC location: DATETIME carries none, and
// every time here is written as UTC.
func utc(r catalogue.Run) catalogue.Run {
	r.CreatedAt = r.CreatedAt.UTC()
	for _, t := range []**time.Time{&r.StartedAt, &r.FinishedAt, &r.Deadline} {
		if *t != nil {
			v := (**t).UTC()
			*t = &v
		}
	}
	if r.Next != nil {
		n := *r.Next
		n.At = n.At.UTC()
		r.Next = &n
	}
	return r
}
