package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/internal/timeline"
)

// TestTimelineOfAPausePastTTL: a redis sale, watchdog off, fencing on; the
// pause_holder fault stalls A past its 500 ms TTL while B takes the lock
// and buys. The timeline shows the overlapping pair (A, B), A's write
// refused (fenced) with the fault's window over A's section, the tokens
// growing in entry order, A's lease granted then expired, a narration
// that tells the fenced write, and the fault's effect: fencing refused it.
func TestTimelineOfAPausePastTTL(t *testing.T) {
	faultsOn(t)
	e := newEnv(t, withQueue)
	v := e.createSale(t, `{"name":"timeline","strategy":"redis","stock":10,"ttl_ms":500,"watchdog":false,"fencing":true}`)
	path := fmt.Sprintf("/api/sales/%d/timeline", v.ID)
	stallAPastItsLease(t, e, v.ID)
	rec := e.get(path)
	var tl timeline.Timeline
	mustJSON(t, rec, &tl)
	t.Logf("narration: %+v", tl.Narration)
	fenced, b := fencedAndAfter(t, tl)
	timelineTellsThePause(t, tl, fenced, b)
	aWindowAroundB(t, e, path, tl, b)
}

// stallAPastItsLease has buyer A stall 3 s inside its section, past its
// 500 ms lease, while B buys: B's order is made (201), A's write is
// fenced (409). On a loaded machine A's 500 ms may run out before the
// stall point (lock_lost, nothing written): then again.
func stallAPastItsLease(t *testing.T, e *env, saleID uint64) {
	var codeA chan int
	for attempt := 1; ; attempt++ {
		if rec := e.post("/api/faults", `{"kind":"pause_holder","ms":3000}`); rec.Code != http.StatusAccepted {
			t.Fatalf("pause_holder: %d %s", rec.Code, rec.Body)
		}
		codeA = make(chan int, 1)
		go func() { codeA <- e.post(ordersPath(saleID), `{"user_id":"A"}`).Code }()
		stalled := false
		testenv.WaitFor(t, 30*time.Second, "A stalled inside its section (or back)", func() bool {
			if pointsOf(e.lockers).Stalled() == 1 {
				stalled = true
				return true
			}
			return len(codeA) > 0
		})
		if stalled {
			break
		}
		if attempt == 5 {
			t.Fatalf("A never reached its stall: %d", <-codeA)
		}
		<-codeA
	}
	var codeB int
	for range 5 { // B's 500 ms may run out before its write too
		if codeB = e.post(ordersPath(saleID), `{"user_id":"B"}`).Code; codeB == http.StatusCreated {
			break
		}
	}
	if a := <-codeA; codeB != http.StatusCreated || a != http.StatusConflict {
		t.Fatalf("B answered %d (want 201), A %d (want 409 fenced)", codeB, a)
	}

}

// fencedAndAfter finds A's fenced section and B's committed one after it,
// checking on the way that tokens grow in entry order and are ranked #1,
// #2, ... with their raw value kept.
func fencedAndAfter(t *testing.T, tl timeline.Timeline) (fenced, b *timeline.Section) {
	for i, s := range tl.Sections {
		if s.Outcome == sectionlog.OutcomeFenced {
			fenced = &tl.Sections[i]
		}
		if i > 0 && s.Token <= tl.Sections[i-1].Token {
			t.Errorf("tokens not growing in entry order: %d after %d", s.Token, tl.Sections[i-1].Token)
		}
		// Each token is numbered in grant order, #1, #2, ...; the raw one stays.
		if s.TokenRank != i+1 || s.TokenRaw != strconv.FormatUint(s.Token, 10) {
			t.Errorf("section %d: token %d ranked #%d (raw %q), want #%d", s.ID, s.Token, s.TokenRank, s.TokenRaw, i+1)
		}
	}
	if fenced == nil {
		t.Fatalf("no fenced section: %+v", tl.Sections)
	}
	for i, s := range tl.Sections {
		if s.Outcome == sectionlog.OutcomeCommitted && s.OrderID != nil && s.Token > fenced.Token {
			b = &tl.Sections[i]
		}
	}
	if b == nil {
		t.Fatalf("no committed section after the fenced one: %+v", tl.Sections)
	}
	return fenced, b
}

// timelineTellsThePause: A and B overlap with B's order, a pause_holder
// window covers A's section, each pause did no damage because fencing
// refused A's write, A's lease was granted and expired, the narration
// tells the fenced write, and the whole sale is in the window.
func timelineTellsThePause(t *testing.T, tl timeline.Timeline, fenced, b *timeline.Section) {
	paired := false
	for _, o := range tl.Overlaps {
		paired = paired || (o.A == fenced.ID && o.B == b.ID && len(o.Orders) == 1 && o.Orders[0] == *b.OrderID)
	}
	if !paired || tl.Violations.Count < 1 || tl.Violations.Counts.En == "" || tl.Violations.Counts.Zh == "" {
		t.Errorf("the overlap of A (%d) and B (%d) with B's order: %+v, %+v", fenced.ID, b.ID, tl.Overlaps, tl.Violations)
	}
	over := false
	for _, f := range tl.Faults {
		over = over || (f.Kind == "pause_holder" && f.Replica == "httpapi-test" && f.To != nil &&
			f.From <= fenced.EnterAt && *f.To >= fenced.EnterAt)
	}
	if !over {
		t.Errorf("no pause_holder window over A's section [%v, %v]: %+v", fenced.EnterAt, fenced.ExitAt, tl.Faults)
	}
	// Each pause did no damage, and the timeline says why: fencing refused A's write.
	if len(tl.FaultEffects) != len(tl.Faults) {
		t.Errorf("fault effects %+v for the faults %+v", tl.FaultEffects, tl.Faults)
	}
	for _, fx := range tl.FaultEffects {
		if fx.Reason != timeline.ReasonFenced || fx.Damaged || !strings.Contains(fx.En, "fencing refused 1 stale write") {
			t.Errorf("fault effect %+v, want fencing refused 1 stale write", fx)
		}
	}
	var granted, expired bool
	for _, l := range tl.Leases {
		granted = granted || (l.Token == fenced.Token && l.Event == "granted" && l.TTLMS == 500)
		expired = expired || (l.Token == fenced.Token && l.Event == "expired")
	}
	if !granted || !expired {
		t.Errorf("A's lease (token %d) granted with 500 ms and expired: %+v", fenced.Token, tl.Leases)
	}
	told := false
	for _, l := range tl.Narration {
		told = told || (strings.Contains(l.En, fmt.Sprintf("writes with token #%d: refused (fenced)", fenced.TokenRank)) &&
			strings.Contains(l.Zh, "被拒绝（防护令牌拦截）"))
	}
	if !told {
		t.Errorf("the narration does not tell the fenced write: %+v", tl.Narration)
	}
	if tl.Summarised || tl.From > fenced.EnterAt || tl.To < b.ExitAt || len(tl.Stock) < 2 || tl.Stock[len(tl.Stock)-1].Stock != 9 {
		t.Errorf("window %v..%v, summarised %v, stock %+v", tl.From, tl.To, tl.Summarised, tl.Stock)
	}
}

// aWindowAroundB: a window around B alone still counts the sale's
// violations and numbers its tokens as the whole sale does; the HTML
// export opens offline.
func aWindowAroundB(t *testing.T, e *env, path string, tl timeline.Timeline, b *timeline.Section) {
	rec := e.get(fmt.Sprintf("%s?from=%.3f&to=%.3f", path, float64(b.EnterAt), float64(b.ExitAt)))
	var win timeline.Timeline
	mustJSON(t, rec, &win)
	if win.Violations.Count != tl.Violations.Count || len(win.Sections) == 0 {
		t.Errorf("windowed: %d sections, violations %d (whole sale %d)", len(win.Sections), win.Violations.Count, tl.Violations.Count)
	}
	// B's token is numbered as in the whole sale.
	for _, s := range win.Sections {
		if s.ID == b.ID && s.TokenRank != b.TokenRank {
			t.Errorf("windowed: B's token is #%d, #%d in the whole sale", s.TokenRank, b.TokenRank)
		}
	}
	html := e.get(path + ".html")
	if html.Code != http.StatusOK || !strings.HasPrefix(html.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(html.Body.String(), "<canvas") || strings.Contains(html.Body.String(), "src=") ||
		strings.Contains(html.Body.String(), "://") { // nothing fetched: it opens offline
		t.Errorf("timeline.html: %d %s", html.Code, html.Header().Get("Content-Type"))
	}
}

// TestTimelineRejectsBadWindows: from and to are milliseconds since the
// epoch, from not after to; the 400 names the field.
func TestTimelineRejectsBadWindows(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"name":"timeline bad","strategy":"mutex","stock":1}`)
	path := fmt.Sprintf("/api/sales/%d/timeline", v.ID)
	for _, c := range []struct{ query, field string }{
		{"?from=abc", "from"}, {"?to=1e400", "to"}, {"?from=-5", "from"}, {"?to=", "to"},
		{"?from=2000&to=1000", "from"}, {".html?from=x", "from"},
	} {
		wantError(t, e.get(path+c.query), http.StatusBadRequest, "invalid_field", c.field)
	}
	wantError(t, e.get("/api/sales/abc/timeline"), http.StatusBadRequest, "invalid_id", "id")
	if rec := e.get(path + "?from=1000&to=1000"); rec.Code != http.StatusOK {
		t.Fatalf("an empty window: %d %s", rec.Code, rec.Body)
	}
}
