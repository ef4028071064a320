package matrix_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// predicted is the whole predicted table of this build: every row against
// every fault, the columns titled by their names.
func predicted() (matrix.Report, []matrix.Row) {
	var cols []matrix.Column
	for _, f := range faultkind.All {
		cols = append(cols, matrix.Column{Name: f, TitleEn: string(f), TitleZh: string(f)})
	}
	rows := matrix.Rows(lockstrategy.All())
	return matrix.Predicted(rows, cols), rows
}

// A report as a run makes it passes; each way a report can be wrong is
// refused naming the member at fault.
func TestCheckNamesTheMemberAtFault(t *testing.T) {
	good, rows := predicted()
	good.StartedAt = time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	good.FinishedAt = good.StartedAt.Add(time.Hour)
	good.Commit, good.Machine = strings.Repeat("a", matrix.MaxCommitBytes), strings.Repeat("机", matrix.MaxMachineChars)
	good.Cells[0].Kind, good.Cells[0].History = matrix.Broken, "not_linearizable"
	if err := matrix.Check(good, rows); err != nil {
		t.Fatalf("a good report: %v", err)
	}
	if err := matrix.Check(matrix.Report{}, rows); err != nil {
		t.Fatalf("an empty report: %v", err)
	}
	for _, tc := range []struct {
		field string
		spoil func(r *matrix.Report)
	}{
		{"started_at", func(r *matrix.Report) { r.StartedAt = time.Date(999, 12, 31, 0, 0, 0, 0, time.UTC) }},
		{"finished_at", func(r *matrix.Report) { r.FinishedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"finished_at", func(r *matrix.Report) { r.FinishedAt = r.StartedAt.Add(-time.Second) }},
		{"commit", func(r *matrix.Report) { r.Commit += "b" }},
		{"machine", func(r *matrix.Report) { r.Machine += "x" }},
		{"faults[2].name", func(r *matrix.Report) { r.Faults[2].Name = "no_such_fault" }},
		{"faults[1].name", func(r *matrix.Report) { r.Faults[1].Name = r.Faults[0].Name }},
		{"rows[3].name", func(r *matrix.Report) { r.Rows[3].Name = "redis+telepathy" }},
		{"rows[1].name", func(r *matrix.Report) { r.Rows[1] = r.Rows[0] }},
		{"rows[0].strategy", func(r *matrix.Report) { r.Rows[0].Strategy = "none" }},
		{"rows[0].group", func(r *matrix.Report) { r.Rows[0].Group = "elsewhere" }},
		{"rows[0].fencing", func(r *matrix.Report) { r.Rows[0].Fencing = !r.Rows[0].Fencing }},
		{"cells[4].row", func(r *matrix.Report) { r.Cells[4].Row = "nobody" }},
		{"cells[0].row", func(r *matrix.Report) { r.Rows = r.Rows[1:] }},
		{"cells[0].fault", func(r *matrix.Report) { r.Faults = r.Faults[1:] }},
		{"cells[5].kind", func(r *matrix.Report) { r.Cells[5].Kind = "fine" }},
		{"cells[5].predicted.kind", func(r *matrix.Report) { r.Cells[5].Predicted.Kind = "" }},
		{"cells[6].history", func(r *matrix.Report) { r.Cells[6].History = "linear" }},
		{"cells[7]", func(r *matrix.Report) { r.Cells[7] = r.Cells[1] }},
	} {
		r := good
		r.Faults = append([]matrix.Column(nil), good.Faults...)
		r.Rows = append([]matrix.RowRef(nil), good.Rows...)
		r.Cells = append([]matrix.Cell(nil), good.Cells...)
		tc.spoil(&r)
		err := matrix.Check(r, rows)
		var fe *matrix.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, matrix.ErrInvalid) || fe.Message == "" {
			t.Errorf("want a refusal naming %s, got %v", tc.field, err)
		}
	}
}
