package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// matrixEnv is newEnv with no matrix run kept.
func matrixEnv(t *testing.T, opts ...func(*envConfig)) *env {
	t.Helper()
	e := newEnv(t, opts...)
	if err := e.db.Exec("DELETE FROM matrix_runs").Error; err != nil {
		t.Fatal(err)
	}
	return e
}

// smallReport is a run of three rows against three faults, one cell
// observed, as loadtest matrix posts it.
func smallReport() matrix.Report {
	cols := matrix.FaultColumns()[:3]
	r := matrix.Predicted(matrix.Rows(lockstrategy.All())[:3], cols)
	r.StartedAt = time.Date(2025, 5, 1, 9, 0, 0, 500_000_000, time.UTC)
	r.FinishedAt = r.StartedAt.Add(time.Minute)
	r.Commit, r.Machine, r.Targets, r.Seed, r.Complete = "0123456789ab", "lab (2 cores)", []string{"http://127.0.0.1:8080"}, 7, true
	c := &r.Cells[1]
	c.Kind, c.WhyEn, c.WhyZh, c.Finding, c.SaleID, c.History = matrix.Broken, "oversold by 2", "超卖 2 件", true, 12, "not_linearizable"
	c.Figures = matrix.Figures{Stock: 10, Sold: 12, Oversold: 2}
	return r
}

func (e *env) matrixRuns(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := e.db.Raw("SELECT COUNT(*) FROM matrix_runs").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *env) getMatrix(t *testing.T, path string) matrixAnswer {
	t.Helper()
	rec := e.get(path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	var a matrixAnswer
	mustJSON(t, rec, &a)
	return a
}

func (e *env) postMatrix(t *testing.T, r matrix.Report, header ...string) uint64 {
	t.Helper()
	rec := e.post("/api/matrix", string(mustMarshal(t, r)), header...)
	var got map[string]uint64
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /api/matrix: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &got)
	if len(got) != 1 || got["id"] == 0 {
		t.Fatalf("POST /api/matrix answered %s, want {\"id\": N}", rec.Body)
	}
	return got["id"]
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// With no run kept, GET /api/matrix is the predicted table: every row of
// this build in its bands against every fault titled as the fault table
// titles it, each cell predicted and not run.
func TestMatrixIsPredictedUntilARunIsKept(t *testing.T) {
	e := matrixEnv(t)
	a := e.getMatrix(t, "/api/matrix")
	rows := matrix.Rows(lockstrategy.All())
	r := a.Report
	if a.Observed || r.ID != 0 || len(r.Rows) != len(rows) || len(r.Faults) != len(faultkind.All) ||
		len(r.Cells) != len(rows)*len(faultkind.All) {
		t.Fatalf("observed %v id %d, %d rows, %d faults, %d cells; want the predicted table of %d rows and %d faults",
			a.Observed, r.ID, len(r.Rows), len(r.Faults), len(r.Cells), len(rows), len(faultkind.All))
	}
	for i, c := range r.Faults {
		k, _ := faults.Find(string(c.Name))
		if c.Name != faultkind.All[i] || c.TitleEn != k.Title.En || c.TitleZh != k.Title.Zh || c.TitleEn == "" {
			t.Errorf("faults[%d] = %+v, want %s titled %q / %q", i, c, faultkind.All[i], k.Title.En, k.Title.Zh)
		}
	}
	if grouped := matrix.Grouped(rows); r.Rows[0].Name != grouped[0].Name || r.Rows[len(rows)-1].Name != grouped[len(rows)-1].Name {
		t.Errorf("rows from %s to %s, want them in bands (%s to %s)", r.Rows[0].Name, r.Rows[len(rows)-1].Name,
			grouped[0].Name, grouped[len(rows)-1].Name)
	}
	for _, c := range r.Cells {
		if c.Kind != "" || c.Predicted.Kind == "" || c.Predicted.WhyEn == "" {
			t.Fatalf("cell %+v: want predicted, not run", c)
		}
	}
	if err := matrix.Check(r, rows); err != nil {
		t.Fatalf("the predicted table fails its own check: %v", err)
	}
}

// A posted report reads back whole under its id: as the newest (observed)
// and by ?id=; a later one becomes the newest, and the first stays by id.
func TestMatrixRoundTrip(t *testing.T) {
	e := matrixEnv(t)
	first := smallReport()
	first.ID = 4242 // ignored: the database gives the id
	id1 := e.postMatrix(t, first)
	first.ID = id1
	for _, path := range []string{"/api/matrix", fmt.Sprintf("/api/matrix?id=%d", id1)} {
		if a := e.getMatrix(t, path); !a.Observed || !reflect.DeepEqual(a.Report, first) {
			t.Fatalf("GET %s: observed %v\n got %+v\nwant %+v", path, a.Observed, a.Report, first)
		}
	}
	second := smallReport()
	// Interrupted (the cells that ran are kept), on a machine whose name
	// fills its column.
	second.Complete, second.Machine = false, strings.Repeat("机", matrix.MaxMachineChars)
	second.Cells = second.Cells[:2]
	second.ID = e.postMatrix(t, second)
	if a := e.getMatrix(t, "/api/matrix"); !a.Observed || !reflect.DeepEqual(a.Report, second) {
		t.Fatalf("newest: %+v, want the second run %+v", a.Report, second)
	}
	if a := e.getMatrix(t, fmt.Sprintf("/api/matrix?id=%d", id1)); a.Report.ID != id1 || !a.Report.Complete {
		t.Fatalf("the first run by id: %+v", a.Report)
	}
	// The whole predicted table is past the 64 KiB bound of the other
	// bodies, and within the matrix's.
	whole := matrix.Predicted(matrix.Rows(lockstrategy.All()), matrix.FaultColumns())
	if n := len(mustMarshal(t, whole)); n <= MaxBodyBytes {
		t.Fatalf("the whole table is %d bytes of JSON; the test wants one past MaxBodyBytes", n)
	}
	e.postMatrix(t, whole)
	wantError(t, e.get(fmt.Sprintf("/api/matrix?id=%d", second.ID+1000)), http.StatusNotFound, "not_found", "id")
	for _, bad := range []string{"0", "-1", "abc", "", "1.5", "99999999999999999999"} {
		wantError(t, e.get("/api/matrix?id="+bad), http.StatusBadRequest, "invalid_field", "id")
	}
}

// edited is r's JSON changed as a tree by f.
func edited(t *testing.T, r matrix.Report, f func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(mustMarshal(t, r), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	return string(mustMarshal(t, m))
}

// at is the object at m[list][i].
func at(m map[string]any, list string, i int) map[string]any {
	return m[list].([]any)[i].(map[string]any)
}

// A bad report is a 400 naming the member at fault by its path, and keeps
// nothing.
func TestMatrixRefusesBadReports(t *testing.T) {
	e := matrixEnv(t)
	r := smallReport()
	for _, tc := range []struct {
		field, code string
		body        string
	}{
		{"cells[1].kind", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 1)["kind"] = "fine" })},
		{"cells[2].predicted.kind", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 2)["predicted"].(map[string]any)["kind"] = "" })},
		{"cells[0].row", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 0)["row"] = "redis+telepathy" })},
		{"cells[0].fault", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 0)["fault"] = "meteor" })},
		{"cells[3]", "invalid_field", edited(t, r, func(m map[string]any) { m["cells"].([]any)[3] = at(m, "cells", 0) })},
		{"cells[4].fault", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 4)["fault"] = string(faultkind.StaleRing) })},
		{"cells[0].history", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 0)["history"] = "maybe" })},
		{"faults[1].name", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "faults", 1)["name"] = "meteor" })},
		{"faults[1].name", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "faults", 1)["name"] = at(m, "faults", 0)["name"] })},
		{"rows[2].name", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "rows", 2)["name"] = "nobody" })},
		{"rows[0].fencing", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "rows", 0)["fencing"] = !r.Rows[0].Fencing })},
		{"commit", "invalid_field", edited(t, r, func(m map[string]any) { m["commit"] = strings.Repeat("a", 65) })},
		{"machine", "invalid_field", edited(t, r, func(m map[string]any) { m["machine"] = strings.Repeat("机", 201) })},
		{"started_at", "invalid_field", edited(t, r, func(m map[string]any) { m["started_at"] = "yesterday" })},
		{"started_at", "invalid_field", edited(t, r, func(m map[string]any) { m["started_at"] = "0999-01-01T00:00:00Z" })},
		{"finished_at", "invalid_field", edited(t, r, func(m map[string]any) { m["finished_at"] = "2025-04-30T00:00:00Z" })},
		{"cells", "invalid_field", edited(t, r, func(m map[string]any) { m["cells"] = "all of them" })},
		{"cells[0]", "invalid_field", edited(t, r, func(m map[string]any) { m["cells"].([]any)[0] = 5 })},
		{"cells[0].figures.sold", "invalid_field", edited(t, r, func(m map[string]any) { at(m, "cells", 0)["figures"].(map[string]any)["sold"] = "12" })},
		{"cells[0].Kind", "unknown_field", edited(t, r, func(m map[string]any) { at(m, "cells", 0)["Kind"] = "holds" })},
		{"rows[0].colour", "unknown_field", edited(t, r, func(m map[string]any) { at(m, "rows", 0)["colour"] = "red" })},
		{"verdict", "unknown_field", edited(t, r, func(m map[string]any) { m["verdict"] = "fine" })},
		{"", "invalid_json", `{"cells":[`},
		{"", "empty_body", ``},
	} {
		rec := e.post("/api/matrix", tc.body)
		wantError(t, rec, http.StatusBadRequest, tc.code, tc.field)
	}
	if n := e.matrixRuns(t); n != 0 {
		t.Fatalf("%d runs kept after bad reports, want none", n)
	}
}

// Past the matrix's body bound is a 413, declared or chunked; a report
// whose stored JSON would be past the store's bound (invalid UTF-8, each
// byte kept as three) is a 413 report_too_large; neither keeps anything.
func TestMatrixBounds(t *testing.T) {
	e := matrixEnv(t)
	r := smallReport()
	r.Cells[0].WhyEn = strings.Repeat("x", MaxMatrixBytes)
	over := string(mustMarshal(t, r))
	wantError(t, e.post("/api/matrix", over), http.StatusRequestEntityTooLarge, "body_too_large", "")
	wantError(t, e.do(http.MethodPost, "/api/matrix", strings.NewReader(over), "Transfer-Encoding: chunked"),
		http.StatusRequestEntityTooLarge, "body_too_large", "")
	r.Cells[0].WhyEn = ""
	body := strings.Replace(string(mustMarshal(t, r)), `"why_en":""`, `"why_en":"`+strings.Repeat("\xff", MaxMatrixBytes-64<<10)+`"`, 1)
	wantError(t, e.post("/api/matrix", body), http.StatusRequestEntityTooLarge, "report_too_large", "")
	if n := e.matrixRuns(t); n != 0 {
		t.Fatalf("%d runs kept past the bounds, want none", n)
	}
}

// With an admin token the write needs it (TestEveryWriteNeedsTheToken
// refuses it without); the read needs none.
func TestMatrixWriteTakesTheToken(t *testing.T) {
	e := matrixEnv(t, withToken("s3cret"))
	wantError(t, e.post("/api/matrix", string(mustMarshal(t, smallReport()))), http.StatusUnauthorized, "unauthorized", "")
	id := e.postMatrix(t, smallReport(), "Authorization: Bearer s3cret")
	if a := e.getMatrix(t, "/api/matrix"); a.Report.ID != id {
		t.Fatalf("newest %d, want %d", a.Report.ID, id)
	}
}

// A database that fails is a retryable 503 db_unavailable, on both
// routes, its cause logged and never shown.
func TestMatrixDatabaseDown(t *testing.T) {
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: testenv.MySQLDSN(t, "httpapi")})
	if err != nil {
		t.Fatal(err)
	}
	inventory.Close(db)
	e := newEnv(t, func(c *envConfig) { c.db = db })
	for _, tc := range []struct{ route, body string }{{"GET /api/matrix", ""}, {"GET /api/matrix?id=1", ""},
		{"POST /api/matrix", string(mustMarshal(t, smallReport()))}} {
		method, path, _ := strings.Cut(tc.route, " ")
		rec := e.do(method, path, strings.NewReader(tc.body))
		if b := wantError(t, rec, http.StatusServiceUnavailable, "db_unavailable", ""); !b.Retryable || strings.Contains(rec.Body.String(), "sql") {
			t.Fatalf("%s: %s; want retryable, nothing of the driver's", tc.route, rec.Body)
		}
	}
	if !strings.Contains(e.logs.String(), "database is closed") {
		t.Fatalf("the real error is not logged: %s", e.logs)
	}
}
