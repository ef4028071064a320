package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// GET /api/interview, with an admin token set and none sent (a read), over
// a database of its own where one matrix run observed redis × freeze_redis:
// every question, those figures naming that run, the others unmeasured.
func TestInterviewFillsFromTheRunsKept(t *testing.T) {
	db := testenv.DB(t, "httpapi_interview")
	for _, table := range []string{"lesson_runs", "matrix_runs"} {
		if err := db.Exec("DELETE FROM " + table).Error; err != nil {
			t.Fatal(err)
		}
	}
	id, err := matrixdb.NewStore(db).Save(context.Background(), matrix.Report{StartedAt: time.Now().UTC(), Machine: "test",
		Cells: []matrix.Cell{{Row: "redis", Fault: faultkind.FreezeRedis, Kind: matrix.Unavailable, SaleID: 9, UnavailableMS: 3100}}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withToken("s3cret"), func(c *envConfig) { c.db = db })
	rec := e.get("/api/interview")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/interview: %d %s", rec.Code, rec.Body)
	}
	var page interview.Page
	mustJSON(t, rec, &page)
	if len(page.Questions) != len(interview.Questions) || page.Measured == 0 || page.Unmeasured == 0 {
		t.Fatalf("%d questions, %d measured, %d not: want every question, both kinds", len(page.Questions), page.Measured, page.Unmeasured)
	}
	for _, q := range page.Questions {
		for _, f := range q.Figures {
			fromIt := f.Source.Row == "redis" && f.Source.Fault == faultkind.FreezeRedis
			if f.Measured != fromIt || (fromIt && (f.From.Kind != interview.MatrixRunKind || f.From.ID != id || f.From.SaleLink != "#/timeline?sale=9")) {
				t.Errorf("%s: %+v %+v, want only redis × freeze_redis measured, by matrix run %d", q.ID, f, f.From, id)
			}
		}
	}
}

// A database that fails is a retryable 503 db_unavailable, its cause
// logged and never shown.
func TestInterviewDatabaseDown(t *testing.T) {
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: testenv.MySQLDSN(t, "httpapi_interview")})
	if err != nil {
		t.Fatal(err)
	}
	inventory.Close(db)
	e := newEnv(t, func(c *envConfig) { c.db = db })
	rec := e.get("/api/interview")
	if b := wantError(t, rec, http.StatusServiceUnavailable, "db_unavailable", ""); !b.Retryable || strings.Contains(rec.Body.String(), "sql") {
		t.Fatalf("%s; want retryable, nothing of the driver's", rec.Body)
	}
}
