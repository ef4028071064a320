package matrixdb_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// emptyStore is a Store over this package's database
// (seckill_test_matrixdb) with no run kept.
func emptyStore(t *testing.T) (*matrixdb.Store, func(query string, args ...any) []any) {
	t.Helper()
	db := testenv.DB(t, "matrixdb")
	if err := db.Exec("DELETE FROM matrix_runs").Error; err != nil {
		t.Fatal(err)
	}
	row := func(query string, args ...any) []any {
		t.Helper()
		rs, err := db.Raw(query, args...).Rows()
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rs.Next() {
			t.Fatalf("%s: no row", query)
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		return vals
	}
	return matrixdb.NewStore(db), row
}

// observed is a run of two cells of the predicted table, one observed and
// one not run, with everything a run sets.
func observed() matrix.Report {
	var cols []matrix.Column
	for _, f := range faultkind.All[:2] {
		cols = append(cols, matrix.Column{Name: f, TitleEn: "Title <" + string(f) + ">", TitleZh: "标题"})
	}
	rep := matrix.Predicted(matrix.Rows(lockstrategy.All())[:1], cols)
	rep.StartedAt = time.Date(2025, 5, 1, 9, 0, 0, 123456789, time.UTC)
	rep.FinishedAt = rep.StartedAt.Add(90 * time.Second)
	rep.Commit, rep.Machine, rep.Targets, rep.Seed, rep.Quick = "0123456789ab", "lab (4 cores)", []string{"http://127.0.0.1:8080"}, 42, true
	rep.Cells[0].Kind, rep.Cells[0].WhyEn, rep.Cells[0].WhyZh, rep.Cells[0].Finding = matrix.Broken, "lost updates", "丢失更新", true
	rep.Cells[0].SaleID, rep.Cells[0].Seed, rep.Cells[0].History, rep.Cells[0].Replay = 7, 43, "not_linearizable", "loadtest matrix --only x"
	rep.Cells[0].Figures = matrix.Figures{Stock: 10, Sold: 12, Oversold: 2, LostUpdates: 3, Violations: 4}
	return rep
}

// A saved report reads back equal, under the id Save gave, by Get and by
// Newest, which is the one saved last, complete or not; the columns a
// list reads say the same as the report.
func TestSaveReadsBackWhole(t *testing.T) {
	s, row := emptyStore(t)
	ctx := context.Background()
	if _, ok, err := s.Newest(ctx); ok || err != nil {
		t.Fatalf("newest of none: ok %v err %v", ok, err)
	}
	first := observed()
	first.Complete = true
	id1, err := s.Save(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	second := observed()
	second.ID = 999999 // ignored: the database gives the id
	id2, err := s.Save(ctx, second)
	if err != nil || id2 <= id1 || id2 == second.ID {
		t.Fatalf("second save: id %d (first %d), err %v", id2, id1, err)
	}
	got, err := s.Get(ctx, id1)
	first.ID = id1
	if err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("get %d: err %v\n got %+v\nwant %+v", id1, err, got, first)
	}
	newest, ok, err := s.Newest(ctx)
	second.ID = id2
	if err != nil || !ok || !reflect.DeepEqual(newest, second) {
		t.Fatalf("newest: ok %v err %v\n got %+v\nwant %+v", ok, err, newest, second)
	}
	cols := row("SELECT started_at, finished_at, commit_sha, machine, complete, cells, created_at IS NOT NULL, report LIKE '%<%' FROM matrix_runs WHERE id = ?", id1)
	want := []any{first.StartedAt.Truncate(time.Millisecond), first.FinishedAt.Truncate(time.Millisecond), "0123456789ab", "lab (4 cores)", int64(1), int64(2), int64(1), int64(1)}
	for i := range want {
		if b, isBytes := cols[i].([]byte); isBytes {
			cols[i] = string(b)
		}
		if tm, isTime := cols[i].(time.Time); isTime {
			cols[i] = tm.UTC()
		}
		if !reflect.DeepEqual(cols[i], want[i]) {
			t.Errorf("column %d: %#v, want %#v", i, cols[i], want[i])
		}
	}
	if _, err := s.Get(ctx, id2+1000); !errors.Is(err, matrixdb.ErrNotFound) {
		t.Fatalf("get of no run: %v, want ErrNotFound", err)
	}
}

// A report without times (the predicted table) is kept with NULL times;
// one whose JSON is past MaxReportBytes is refused and nothing is kept.
func TestSaveTimelessAndTooLarge(t *testing.T) {
	s, row := emptyStore(t)
	ctx := context.Background()
	timeless := observed()
	timeless.StartedAt, timeless.FinishedAt = time.Time{}, time.Time{}
	id, err := s.Save(ctx, timeless)
	if err != nil {
		t.Fatal(err)
	}
	if v := row("SELECT started_at IS NULL AND finished_at IS NULL FROM matrix_runs WHERE id = ?", id); v[0] != int64(1) {
		t.Fatalf("times of a timeless report: %v, want NULL", v)
	}
	big := observed()
	big.Cells[0].WhyEn = strings.Repeat("\xff", matrixdb.MaxReportBytes/3+1) // each invalid byte becomes U+FFFD, three bytes
	if _, err := s.Save(ctx, big); !errors.Is(err, matrixdb.ErrTooLarge) {
		t.Fatalf("a report past the bound: %v, want ErrTooLarge", err)
	}
	if v := row("SELECT COUNT(*) FROM matrix_runs"); v[0] != int64(1) {
		t.Fatalf("%v runs kept, want the timeless one alone", v[0])
	}
}
