// Package matrixdb keeps verdict-matrix runs in the database (matrix_runs,
// migrations/0022), the one owner of that table: Save stores a
// matrix.Report whole, as JSON, with the columns a list of runs reads
// beside it; Newest and Get read one back. It is apart from package matrix
// so that the model carries no gorm.
package matrixdb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/matrix"
)

// Errors of the store.
var (
	ErrNotFound = errors.New("matrixdb: no such matrix run")
	// ErrTooLarge: the report's JSON is over MaxReportBytes.
	ErrTooLarge = errors.New("matrixdb: the report is too large to keep")
)

// MaxReportBytes bounds a stored report's JSON (12 MiB): under the
// server's 16 MiB max_allowed_packet with the rest of the row. A whole run
// (every row against every fault, observed) is about a megabyte.
const MaxReportBytes = 12 << 20

// Store keeps matrix runs; any number of replicas may use one over the
// same database.
type Store struct{ db *gorm.DB }

// NewStore returns a Store over db (migrated).
func NewStore(db *gorm.DB) *Store { return &Store{db: db} }

// run is one row of matrix_runs.
type run struct {
	ID         uint64     `gorm:"column:id;primaryKey"`
	StartedAt  *time.Time `gorm:"column:started_at"`
	FinishedAt *time.Time `gorm:"column:finished_at"`
	CommitSHA  string     `gorm:"column:commit_sha"`
	Machine    string     `gorm:"column:machine"`
	Complete   bool       `gorm:"column:complete"`
	Cells      int        `gorm:"column:cells"`
	Report     string     `gorm:"column:report"`
	CreatedAt  time.Time  `gorm:"column:created_at;->"` // the database's clock
}

func (run) TableName() string { return "matrix_runs" }

// Save stores r (its ID is ignored) and returns the id it is kept under.
// r should have passed matrix.Check: the columns refuse a commit or a
// machine longer than theirs, and a time outside their years.
func (s *Store) Save(ctx context.Context, r matrix.Report) (uint64, error) {
	r.ID = 0
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a '<' kept as one byte, not six (\u003c)
	if err := enc.Encode(r); err != nil {
		return 0, fmt.Errorf("matrixdb: save: %w", err)
	}
	if buf.Len() > MaxReportBytes {
		return 0, fmt.Errorf("%w: %d bytes of JSON, at most %d", ErrTooLarge, buf.Len(), MaxReportBytes)
	}
	row := run{StartedAt: when(r.StartedAt), FinishedAt: when(r.FinishedAt), CommitSHA: r.Commit,
		Machine: r.Machine, Complete: r.Complete, Cells: len(r.Cells), Report: buf.String()}
	if err := s.db.WithContext(ctx).Create(&row).Error; err != nil {
		return 0, fmt.Errorf("matrixdb: save: %w", err)
	}
	return row.ID, nil
}

// Newest is the run saved last (the highest id), complete or not; ok is
// false when none is kept.
func (s *Store) Newest(ctx context.Context) (r matrix.Report, ok bool, err error) {
	var row run
	err = s.db.WithContext(ctx).Order("id DESC").Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return matrix.Report{}, false, nil
	}
	if err != nil {
		return matrix.Report{}, false, fmt.Errorf("matrixdb: newest: %w", err)
	}
	r, err = row.report()
	return r, err == nil, err
}

// Get is run id; ErrNotFound when there is none.
func (s *Store) Get(ctx context.Context, id uint64) (matrix.Report, error) {
	var row run
	err := s.db.WithContext(ctx).Where("id = ?", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return matrix.Report{}, ErrNotFound
	}
	if err != nil {
		return matrix.Report{}, fmt.Errorf("matrixdb: get: %w", err)
	}
	return row.report()
}

// report is the row's report with its id.
func (r run) report() (matrix.Report, error) {
	var rep matrix.Report
	if err := json.Unmarshal([]byte(r.Report), &rep); err != nil {
		return matrix.Report{}, fmt.Errorf("matrixdb: run %d: %w", r.ID, err)
	}
	rep.ID = r.ID
	return rep, nil
}

// when is t for a DATETIME column: nil (NULL) for the zero time, else UTC.
func when(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
