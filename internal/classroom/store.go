package classroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// Store keeps sessions, questions and votes in the database
// (migrations/0026); any number of replicas may share one. Times come
// from the database's clock, so that replicas agree on when a question
// closes.
type Store struct{ db *gorm.DB }

// NewStore returns a Store over db (migrated).
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// questionRow is a row of class_questions.
type questionRow struct {
	ID          uint64
	SessionID   uint64
	Lesson      *string
	CaseIndex   int
	RunSpec     *string
	SetupEn     string
	SetupZh     string
	Choices     string
	Pace        string
	MaxVotes    int
	ClosesAt    time.Time
	Status      string
	RevealedAt  *time.Time
	LessonRunID *uint64
	RunID       *uint64
	CreatedAt   time.Time
	Open        bool // still open by the database's clock (not a column)
}

// CreateSession starts a session titled title (may be empty).
func (s *Store) CreateSession(ctx context.Context, title string) (Session, error) {
	if utf8.RuneCountInString(title) > MaxTitleLen || !utf8.ValidString(title) {
		return Session{}, &FieldError{"title", fmt.Sprintf("title must be valid text of at most %d characters", MaxTitleLen)}
	}
	res := s.db.WithContext(ctx).Exec(`INSERT INTO class_sessions (title, created_at) VALUES (?, UTC_TIMESTAMP(6))`, title)
	if res.Error != nil {
		return Session{}, fmt.Errorf("classroom: create session: %w", res.Error)
	}
	var id uint64
	if err := s.db.WithContext(ctx).Raw(`SELECT LAST_INSERT_ID()`).Scan(&id).Error; err != nil {
		return Session{}, err
	}
	return s.Session(ctx, id)
}

// sessionRow is a row of class_sessions.
type sessionRow struct {
	ID        uint64
	Title     string
	CreatedAt time.Time
}

// Sessions are the newest ListLimit sessions, without their questions.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	var rows []sessionRow
	if err := s.db.WithContext(ctx).Raw(`SELECT id, title, created_at FROM class_sessions ORDER BY id DESC LIMIT ?`, ListLimit).
		Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(rows))
	for _, r := range rows {
		out = append(out, Session{ID: r.ID, Title: r.Title, CreatedAt: r.CreatedAt})
	}
	return out, nil
}

// Session is session id with its questions, oldest first.
func (s *Store) Session(ctx context.Context, id uint64) (Session, error) {
	var rows []sessionRow
	db := s.db.WithContext(ctx)
	if err := db.Raw(`SELECT id, title, created_at FROM class_sessions WHERE id = ?`, id).Scan(&rows).Error; err != nil {
		return Session{}, err
	}
	if len(rows) == 0 {
		return Session{}, ErrNoSession
	}
	sess := []Session{{ID: rows[0].ID, Title: rows[0].Title, CreatedAt: rows[0].CreatedAt}}
	var ids []uint64
	if err := db.Raw(`SELECT id FROM class_questions WHERE session_id = ? ORDER BY id`, id).Scan(&ids).Error; err != nil {
		return Session{}, err
	}
	sess[0].Questions = []Question{}
	for _, q := range ids {
		v, err := s.Question(ctx, q)
		if err != nil {
			return Session{}, err
		}
		sess[0].Questions = append(sess[0].Questions, v)
	}
	return sess[0], nil
}

// Ask opens a question in session sessionID.
func (s *Store) Ask(ctx context.Context, sessionID uint64, a Ask) (Question, error) {
	if err := a.bounds(); err != nil {
		return Question{}, err
	}
	setup, choices, err := a.setup()
	if err != nil {
		return Question{}, err
	}
	cj, _ := json.Marshal(choices) // plain strings: cannot fail
	var lesson, run *string
	if a.Run != nil {
		r := string(a.Run)
		run = &r
	} else {
		lesson = &a.Lesson
	}
	var id uint64
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Raw(`SELECT COUNT(*) FROM class_sessions WHERE id = ? FOR UPDATE`, sessionID).Scan(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return ErrNoSession
		}
		if err := tx.Exec(`INSERT INTO class_questions (session_id, lesson, case_index, run_spec, setup_en, setup_zh, choices, pace,
			max_votes, closes_at, status, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MINUTE, 'open', UTC_TIMESTAMP(6))`,
			sessionID, lesson, a.Case, run, setup.En, setup.Zh, string(cj), a.Pace, a.MaxVotes, a.Minutes).Error; err != nil {
			return err
		}
		return tx.Raw(`SELECT LAST_INSERT_ID()`).Scan(&id).Error
	})
	if err != nil {
		if errors.Is(err, ErrNoSession) {
			return Question{}, err
		}
		return Question{}, fmt.Errorf("classroom: ask: %w", err)
	}
	return s.Question(ctx, id)
}

// Question is question id as the API shows it (Observed left nil).
func (s *Store) Question(ctx context.Context, id uint64) (Question, error) {
	row, err := s.row(ctx, s.db, id, false)
	if err != nil {
		return Question{}, err
	}
	var votes int64
	if err := s.db.WithContext(ctx).Raw(`SELECT COUNT(*) FROM class_votes WHERE question_id = ?`, id).Scan(&votes).Error; err != nil {
		return Question{}, err
	}
	q := row.view(int(votes))
	if q.Status == StatusRevealed {
		if q.Tally, err = s.tally(ctx, id); err != nil {
			return Question{}, err
		}
	}
	return q, nil
}

// row reads question id (FOR UPDATE when lock, inside tx).
func (s *Store) row(ctx context.Context, db *gorm.DB, id uint64, lock bool) (questionRow, error) {
	q := `SELECT id, session_id, lesson, case_index, run_spec, setup_en, setup_zh, choices, pace, max_votes, closes_at, status,
		revealed_at, lesson_run_id, run_id, created_at, closes_at > UTC_TIMESTAMP(6) AS open FROM class_questions WHERE id = ?`
	if lock {
		q += " FOR UPDATE"
	}
	var rows []questionRow
	if err := db.WithContext(ctx).Raw(q, id).Scan(&rows).Error; err != nil {
		return questionRow{}, err
	}
	if len(rows) == 0 {
		return questionRow{}, ErrNoQuestion
	}
	return rows[0], nil
}

// tally counts question id's votes per outcome, every outcome present.
func (s *Store) tally(ctx context.Context, id uint64) (map[string]int, error) {
	var rows []struct {
		Outcome string
		N       int
	}
	if err := s.db.WithContext(ctx).Raw(`SELECT outcome, COUNT(*) AS n FROM class_votes WHERE question_id = ? GROUP BY outcome`, id).
		Scan(&rows).Error; err != nil {
		return nil, err
	}
	t := make(map[string]int, len(catalogue.Outcomes))
	for _, o := range catalogue.Outcomes {
		t[o] = 0
	}
	for _, r := range rows {
		t[r.Outcome] = r.N
	}
	return t, nil
}

// view is the row as the API shows it, with votes counted.
func (r questionRow) view(votes int) Question {
	q := Question{ID: r.ID, SessionID: r.SessionID, Case: r.CaseIndex, Setup: catalogue.Texts{En: r.SetupEn, Zh: r.SetupZh},
		Pace: r.Pace, MaxVotes: r.MaxVotes, ClosesAt: r.ClosesAt, Status: r.Status, Votes: votes,
		LessonRunID: r.LessonRunID, RunID: r.RunID, CreatedAt: r.CreatedAt, RevealedAt: r.RevealedAt}
	if r.Lesson != nil {
		q.Lesson = *r.Lesson
	}
	if r.RunSpec != nil {
		q.Run = json.RawMessage(*r.RunSpec)
	}
	_ = json.Unmarshal([]byte(r.Choices), &q.Choices) // written by Ask
	if q.Status == StatusOpen && (!r.Open || votes >= r.MaxVotes) {
		q.Status = StatusClosed
	}
	return q
}
