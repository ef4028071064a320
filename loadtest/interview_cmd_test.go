package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// `loadtest interview --html` on two real shops with faults on, over a
// database where every source of the path was measured (kept directly:
// lesson runs and one matrix run) except the cell redis × freeze_redis:
// the command observes that one cell (about 4 s), says it cannot run the
// lessons whose herd figures are missing (no agent here), and writes the
// page, whose redis × freeze_redis figures now name the matrix run it just
// saved. Bounded: one cell, no lesson.
func TestInterviewMeasuresWhatIsMissingAndWritesThePage(t *testing.T) {
	t.Parallel()
	const dbName = "loadtest_interview"
	db := testenv.DB(t, dbName)
	for _, table := range []string{"lesson_runs", "matrix_runs"} {
		if err := db.Exec("DELETE FROM " + table).Error; err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	seeded := seedInterviewSources(t, ctx, lessondb.NewStore(db), matrixdb.NewStore(db))
	env := faultyShops(t, dbName, false, false)
	a, b := startShop(t, env), startShop(t, env)

	out := filepath.Join(t.TempDir(), "interview.html")
	var stdout, stderr bytes.Buffer
	code := dispatch(ctx, []string{"interview", "--targets", a + "," + b, "--admin-token", testToken, "--html", out}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != load.ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "matrix cell redis/freeze_redis") || !strings.Contains(stdout.String(), "interview page written to "+out) {
		t.Errorf("the output does not show the cell run and the page written")
	}
	page := readInterviewPage(t, out)
	if len(page.Questions) != len(interview.Questions) {
		t.Fatalf("%d questions in the page, want %d", len(page.Questions), len(interview.Questions))
	}
	var frozen int
	for _, q := range page.Questions {
		for _, f := range q.Figures {
			switch {
			case f.Source.Row == "redis" && f.Source.Fault == faultkind.FreezeRedis:
				if !f.Measured || f.From.Kind != interview.MatrixRunKind || f.From.ID <= seeded {
					t.Errorf("%s: %+v, want it measured by a matrix run after %d", q.ID, f, seeded)
				}
				frozen++
			case f.Measured && (f.From == nil || f.From.ID == 0 || f.From.Kind == ""):
				t.Errorf("%s: measured %+v names no run", q.ID, f)
			case !f.Measured && (f.Missing == nil || f.Missing.En == "" || f.Missing.Zh == ""):
				t.Errorf("%s: unmeasured %+v does not say so", q.ID, f)
			}
		}
	}
	if frozen == 0 {
		t.Error("no figure of redis × freeze_redis in the page")
	}
}

// seedInterviewSources keeps a finished run of every lesson the path reads
// (each slot's case, its sale gone: its herd figures say so) and one
// matrix run with every cell the path reads but redis × freeze_redis. It
// returns the matrix run's id.
func seedInterviewSources(t *testing.T, ctx context.Context, lessons *lessondb.Store, runs *matrixdb.Store) uint64 {
	t.Helper()
	cases := map[string]catalogue.Cases{}
	rep := matrix.Report{StartedAt: time.Now().UTC(), FinishedAt: time.Now().UTC(), Machine: "test", Complete: true}
	seen := map[string]bool{}
	for _, q := range interview.Questions {
		for _, s := range q.Slots {
			src := s.Source
			switch {
			case src.Kind == interview.FromLesson && !seen[src.Lesson+"/"+src.Case]:
				seen[src.Lesson+"/"+src.Case] = true
				cases[src.Lesson] = append(cases[src.Lesson], catalogue.Case{Name: src.Case, NameZh: src.Case, SaleID: 1 << 40, Sold: 3})
			case src.Kind == interview.FromMatrix && !seen[src.Row+"/"+string(src.Fault)] && !(src.Row == "redis" && src.Fault == faultkind.FreezeRedis):
				seen[src.Row+"/"+string(src.Fault)] = true
				rep.Cells = append(rep.Cells, matrix.Cell{Row: src.Row, Fault: src.Fault, Kind: matrix.Holds})
			}
		}
	}
	agent := fmt.Sprintf("t-agent-%08x", rand.Uint32())
	for name, cs := range cases {
		run, err := lessons.Create(ctx, name, catalogue.PaceNormal)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := lessons.Claim(ctx, agent); !ok || err != nil {
			t.Fatalf("claim %s: ok %v err %v", name, ok, err)
		}
		if err := lessons.Finish(ctx, run.ID, agent, lessondb.Result{Verdict: catalogue.VerdictPass, Cases: cs}); err != nil {
			t.Fatal(err)
		}
	}
	id, err := runs.Save(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// readInterviewPage reads the page's JSON back from the file written.
func readInterviewPage(t *testing.T, path string) interview.Page {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="page">(.*?)</script>`).FindSubmatch(raw)
	if m == nil || !bytes.Contains(raw, []byte("createInterviewView")) || bytes.Contains(raw, []byte(`src="`)) {
		t.Fatalf("%s is not the self-contained page (its JSON, the renderer inlined, nothing fetched)", path)
	}
	var page interview.Page
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &page); err != nil {
		t.Fatal(err)
	}
	return page
}
