package lessondb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// NewestMeasured: the newest finished run with a verdict of its figures
// (PASS or FAIL), past a newer SKIP and one still running; none before.
func TestNewestMeasuredSkipsWhatMeasuredNothing(t *testing.T) {
	db := testenv.DB(t, "lessondb_measured")
	if err := db.Exec("DELETE FROM lesson_runs").Error; err != nil {
		t.Fatal(err)
	}
	s := lessondb.NewStore(db)
	ctx := context.Background()
	const lesson = "split-hot-row"
	if _, ok, err := s.NewestMeasured(ctx, lesson); ok || err != nil {
		t.Fatalf("no run: ok %v err %v, want none", ok, err)
	}
	agent := fmt.Sprintf("t-agent-%08x", rand.Uint32())
	finish := func(verdict string) uint64 {
		t.Helper()
		run, err := s.Create(ctx, lesson, catalogue.PaceNormal)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := s.Claim(ctx, agent); !ok || err != nil {
			t.Fatalf("claim: ok %v err %v", ok, err)
		}
		if verdict != "" {
			if err := s.Finish(ctx, run.ID, agent, lessondb.Result{Verdict: verdict, Cases: catalogue.Cases{{Name: "db-conditional", Sold: 3}}}); err != nil {
				t.Fatal(err)
			}
		}
		return run.ID
	}
	finish(catalogue.VerdictPass)
	want := finish(catalogue.VerdictFail)
	finish(catalogue.VerdictSkip)
	finish("") // still running
	got, ok, err := s.NewestMeasured(ctx, lesson)
	if err != nil || !ok || got.ID != want || len(got.Cases) != 1 || got.Cases[0].Sold != 3 {
		t.Fatalf("%+v ok %v err %v, want run %d with its table", got, ok, err, want)
	}
}
