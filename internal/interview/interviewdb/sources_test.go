package interviewdb_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/interview/interviewdb"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestEveryFilledFigureNamesItsRun keeps a finished run of split-hot-row
// and a matrix run of one cell (redis × freeze_redis) in an empty database,
// fills the path from it, and reads back: every figure of those two names
// the run it came from (kind and id), and every other says it was never
// measured here.
func TestEveryFilledFigureNamesItsRun(t *testing.T) {
	db := testenv.DB(t, "interviewdb")
	for _, table := range []string{"lesson_runs", "matrix_runs"} {
		if err := db.Exec("DELETE FROM " + table).Error; err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	// A sale written as it is, without orders: the lesson's case points
	// at it, and its herd has no sell-out to quote (said, not invented).
	sale := inventory.Sale{Name: "interviewdb test", Strategy: "db-conditional", InitialStock: 10}
	if err := inventory.NewStore(db).CreateSale(ctx, &sale); err != nil {
		t.Fatal(err)
	}
	lessons := lessondb.NewStore(db)
	run, err := lessons.Create(ctx, "split-hot-row", catalogue.PaceNormal)
	if err != nil {
		t.Fatal(err)
	}
	agent := fmt.Sprintf("t-agent-%08x", rand.Uint32())
	if _, ok, err := lessons.Claim(ctx, agent); !ok || err != nil {
		t.Fatalf("claim: ok %v err %v", ok, err)
	}
	cases := catalogue.Cases{{SaleID: sale.ID, Name: "db-conditional, 1 stock shards", NameZh: "db-conditional，库存分 1 段", Sold: 10, InitialStock: 10}}
	if err := lessons.Finish(ctx, run.ID, agent, lessondb.Result{Verdict: catalogue.VerdictPass, Cases: cases}); err != nil {
		t.Fatal(err)
	}
	rep := matrix.Report{StartedAt: time.Now().UTC(), FinishedAt: time.Now().UTC(), Machine: "test", Cells: []matrix.Cell{
		{Row: "redis", Fault: faultkind.FreezeRedis, Kind: matrix.Unavailable, SaleID: sale.ID, UnavailableMS: 2500},
	}}
	matrixID, err := matrixdb.NewStore(db).Save(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}

	page, err := interview.Fill(ctx, interviewdb.New(db), interview.Questions)
	if err != nil {
		t.Fatal(err)
	}
	var fromLesson, fromMatrix int
	for _, q := range page.Questions {
		for _, f := range q.Figures {
			switch {
			case f.Measured && f.From.Kind == interview.LessonRunKind && f.From.ID == run.ID && f.Source.Lesson == "split-hot-row":
				fromLesson++
			case f.Measured && f.From.Kind == interview.MatrixRunKind && f.From.ID == matrixID && f.Source.Row == "redis" && f.Source.Fault == faultkind.FreezeRedis:
				fromMatrix++
				if f.Source.Field == interview.CellUnavailableSeconds && f.Value != 2.5 {
					t.Errorf("%s: %v s, want 2.5", q.ID, f.Value)
				}
			case f.Measured:
				t.Errorf("%s: %+v measured, but no run of its source was kept", q.ID, f)
			case f.Missing == nil || f.Missing.En == "" || f.Missing.Zh == "":
				t.Errorf("%s: %+v unmeasured without saying so", q.ID, f)
			case f.Source.Lesson != "split-hot-row" && !strings.HasPrefix(f.Missing.En, "Never measured on this machine"):
				t.Errorf("%s: %q, want it to say it was never measured here", q.ID, f.Missing.En)
			}
		}
	}
	if fromLesson == 0 || fromMatrix == 0 {
		t.Errorf("%d figures from lesson run %d, %d from matrix run %d: want both", fromLesson, run.ID, fromMatrix, matrixID)
	}
}

// The units a killed replica left in flight: how many reconciliations gave
// back, and how long after the newest kill_process recorded between the
// sale's creation and the last return (an older kill, or one of another
// kind, is not it).
func TestReclaimedAfterTheKill(t *testing.T) {
	db := testenv.DB(t, "interviewdb")
	ctx := context.Background()
	sale := inventory.Sale{Name: "interviewdb reclaim", Strategy: "redis-lua-stock", InitialStock: 10}
	if err := inventory.NewStore(db).CreateSale(ctx, &sale); err != nil {
		t.Fatal(err)
	}
	created := sale.CreatedAt.UTC()
	kill := created.Add(time.Second)
	for _, f := range []struct {
		kind string
		at   time.Time
	}{{string(faultkind.KillProcess), created.Add(-time.Hour)}, {string(faultkind.PauseHolder), created.Add(1500 * time.Millisecond)},
		{string(faultkind.KillProcess), kill}} {
		if err := db.Exec("INSERT INTO fault_events (kind, replica_id, from_at) VALUES (?, 'interviewdb', ?)", f.kind, f.at).Error; err != nil {
			t.Fatal(err)
		}
	}
	for i, back := range []time.Duration{3 * time.Second, 4500 * time.Millisecond} {
		if err := db.Exec("INSERT INTO ticket_failures (order_ticket, sale_id, user_id, reason, failed_at) VALUES (?, ?, ?, ?, ?)",
			fmt.Sprintf("ot_reclaim_%d_%d", sale.ID, i), sale.ID, fmt.Sprintf("b%d", i), inventory.ReasonAbandoned, created.Add(back)).Error; err != nil {
			t.Fatal(err)
		}
	}
	got, err := interviewdb.New(db).Reclaimed(ctx, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Units != 2 || got.BackAfterMS == nil || *got.BackAfterMS != 3500 {
		t.Fatalf("reclaimed %+v (back after %v), want 2 units, the last 3500 ms after the kill", got, got.BackAfterMS)
	}
}
