package matrix

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/seckill-lab/seckill/internal/faultkind"
)

// ErrInvalid is what Check's errors wrap: the report is not one a run of
// this build could have made.
var ErrInvalid = errors.New("matrix: invalid report")

// FieldError names the member of a report at fault, as a path into its
// JSON ("cells[3].kind", "rows[0].name", "machine"), and says why.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return "matrix: " + e.Field + ": " + e.Message }

// Unwrap makes every FieldError an ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// The longest commit (bytes) and machine (characters) a report may carry:
// the sizes of matrix_runs' columns (internal/matrix/matrixdb).
const (
	MaxCommitBytes  = 64
	MaxMachineChars = 200
)

// The instants a report's times may name: a DATETIME column's years, 1000
// to 9999 (a zero time is none).
var (
	minTime = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Histories are the words of a cell's history check ("" when not checked).
var Histories = []string{"", "linearizable", "not_linearizable", "unknown"}

// Check says whether r is a report of rows (the build's, Rows of every
// strategy) against the fault kinds: its columns are known faults, its
// rows known configurations as Ref lists them, each once; every cell is
// one of its rows against one of its columns, once, its words among Kinds
// (its observation may be "": not run) and Histories; its times fit the
// database and its commit and machine their columns. The first fault
// found is a *FieldError (ErrInvalid).
func Check(r Report, rows []Row) error {
	if err := checkHead(r); err != nil {
		return err
	}
	faults := map[faultkind.Name]bool{}
	for i, c := range r.Faults {
		field := fmt.Sprintf("faults[%d].name", i)
		switch {
		case !slices.Contains(faultkind.All, c.Name):
			return invalid(field, "%q is no fault kind", c.Name)
		case faults[c.Name]:
			return invalid(field, "%q is listed twice", c.Name)
		}
		faults[c.Name] = true
	}
	listed, err := checkRows(r.Rows, rows)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range r.Cells {
		field := fmt.Sprintf("cells[%d]", i)
		switch {
		case !listed[c.Row]:
			return invalid(field+".row", "%q is not among the report's rows", c.Row)
		case !faults[c.Fault]:
			return invalid(field+".fault", "%q is not among the report's faults", c.Fault)
		case c.Kind != "" && !slices.Contains(Kinds, c.Kind):
			return invalid(field+".kind", "%q is no cell word (%v, or \"\": not run)", c.Kind, Kinds)
		case !slices.Contains(Kinds, c.Predicted.Kind):
			return invalid(field+".predicted.kind", "%q is no cell word (%v)", c.Predicted.Kind, Kinds)
		case !slices.Contains(Histories, c.History):
			return invalid(field+".history", "%q is no history verdict (%q)", c.History, Histories[1:])
		case seen[c.Row+"/"+string(c.Fault)]:
			return invalid(field, "the cell %s against %s is there twice", c.Row, c.Fault)
		}
		seen[c.Row+"/"+string(c.Fault)] = true
	}
	return nil
}

// checkHead checks what a report says of its run: its times, commit and
// machine.
func checkHead(r Report) error {
	for _, t := range []struct {
		field string
		at    time.Time
	}{{"started_at", r.StartedAt}, {"finished_at", r.FinishedAt}} {
		if !t.at.IsZero() && (t.at.UTC().Before(minTime) || !t.at.UTC().Before(maxTime)) {
			return invalid(t.field, "%s must be within the years 1000 to 9999, not %s", t.field, t.at.UTC().Format(time.RFC3339))
		}
	}
	if !r.StartedAt.IsZero() && !r.FinishedAt.IsZero() && r.FinishedAt.Before(r.StartedAt) {
		return invalid("finished_at", "finished_at is before started_at")
	}
	if len(r.Commit) > MaxCommitBytes {
		return invalid("commit", "commit must be at most %d bytes, not %d", MaxCommitBytes, len(r.Commit))
	}
	if n := utf8.RuneCountInString(r.Machine); n > MaxMachineChars {
		return invalid("machine", "machine must be at most %d characters, not %d", MaxMachineChars, n)
	}
	return nil
}

// checkRows checks a report's rows against the build's: each one of them,
// listed as Ref lists it, once. It returns the names listed.
func checkRows(refs []RowRef, rows []Row) (map[string]bool, error) {
	known := make(map[string]RowRef, len(rows))
	for _, r := range rows {
		known[r.Name] = r.Ref()
	}
	listed := map[string]bool{}
	for i, got := range refs {
		field := fmt.Sprintf("rows[%d]", i)
		want, ok := known[got.Name]
		switch {
		case !ok:
			return nil, invalid(field+".name", "%q is no row of this build (a strategy and its switches: redis+fencing, redis-lua-stock/async)", got.Name)
		case listed[got.Name]:
			return nil, invalid(field+".name", "%q is listed twice", got.Name)
		}
		for _, m := range []struct {
			member    string
			got, want any
		}{{"strategy", got.Strategy, want.Strategy}, {"group", got.Group, want.Group},
			{"fencing", got.Fencing, want.Fencing}, {"no_watchdog", got.NoWatchdog, want.NoWatchdog},
			{"combine", got.Combine, want.Combine}, {"async", got.Async, want.Async}} {
			if m.got != m.want {
				return nil, invalid(field+"."+m.member, "the row %s has %s %#v, not %#v", want.Name, m.member, m.want, m.got)
			}
		}
		listed[got.Name] = true
	}
	return listed, nil
}
