package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/history"
)

// buyAtOnce sends n buyers' orders on sale id at the same time.
func (e *env) buyAtOnce(id uint64, n int) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.post(fmt.Sprintf("/api/sales/%d/orders", id), fmt.Sprintf(`{"user_id":"h%d"}`, i))
		}()
	}
	wg.Wait()
}

func (e *env) history(t *testing.T, id uint64) history.Result {
	t.Helper()
	rec := e.get(fmt.Sprintf("/api/sales/%d/history", id))
	if rec.Code != http.StatusOK {
		t.Fatalf("history: %d %s", rec.Code, rec.Body)
	}
	var r history.Result
	mustJSON(t, rec, &r)
	return r
}

func TestHistoryOfAnOversoldSale(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"none","stock":3,"work_ms":20,"per_user_limit":0}`)
	e.buyAtOnce(v.ID, 8)
	if n := e.countOrders(t, v.ID); n <= 3 {
		t.Fatalf("none sold %d of 3: the race did not happen", n)
	}
	r := e.history(t, v.ID)
	if r.Verdict != history.NotLinearizable || len(r.Witness) != 4 || r.Operations != 8 {
		t.Fatalf("got %s over %d with %d witnesses: %s", r.Verdict, r.Operations, len(r.Witness), r.Message.En)
	}
	if want := fmt.Sprintf("/api/sales/%d/history.html", v.ID); r.Visualization != want {
		t.Fatalf("visualization %q, want %q", r.Visualization, want)
	}
	page := e.get(r.Visualization)
	if page.Code != http.StatusOK || !strings.Contains(page.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(page.Body.String(), "take()") {
		t.Fatalf("visualization: %d %s", page.Code, page.Header().Get("Content-Type"))
	}
	var view struct {
		History *history.Result `json:"history"`
	}
	mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &view)
	if view.History == nil || view.History.Verdict != history.NotLinearizable {
		t.Fatalf("the sale view's history: %+v", view.History)
	}
}

func TestHistoryOfALockedSale(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-pessimistic","stock":3,"work_ms":20,"per_user_limit":0}`)
	e.buyAtOnce(v.ID, 8)
	if r := e.history(t, v.ID); r.Verdict != history.Linearizable || r.Operations != 8 || len(r.Witness) != 0 {
		t.Fatalf("got %s over %d: %s", r.Verdict, r.Operations, r.Message.En)
	}
}

func TestHistoryRejects(t *testing.T) {
	e := newEnv(t)
	for path, want := range map[string]int{
		"/api/sales/x/history":              http.StatusBadRequest,
		"/api/sales/x/history.html":         http.StatusBadRequest,
		"/api/sales/999999999/history":      http.StatusNotFound,
		"/api/sales/999999999/history.html": http.StatusNotFound,
	} {
		rec := e.get(path)
		if rec.Code != want || !strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("%s: %d %s, want %d", path, rec.Code, rec.Body, want)
		}
		if want == http.StatusBadRequest && !strings.Contains(rec.Body.String(), `"field":"id"`) {
			t.Fatalf("%s: %s names no field", path, rec.Body)
		}
	}
}
