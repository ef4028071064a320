package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/httpapi/runsapi"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// lessonsEnv is an API over its own database (seckill_test_httpapi_lessons),
// with no lesson run left open by an interrupted earlier test.
func lessonsEnv(t *testing.T, opts ...func(*envConfig)) *env {
	t.Helper()
	db := testenv.DB(t, "httpapi_lessons")
	e := newEnv(t, append(opts, func(c *envConfig) { c.db = db })...)
	if err := db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'").Error; err != nil {
		t.Fatal(err)
	}
	return e
}

type lessonsList struct {
	Lessons []struct {
		Name    string         `json:"name"`
		Predict string         `json:"predict"`
		Last    *catalogue.Run `json:"last"`
	} `json:"lessons"`
	Agents    int                  `json:"agents"`
	NotTaught []catalogue.Untaught `json:"not_taught"`
}

func TestLessonRunRefusals(t *testing.T) {
	e := lessonsEnv(t, withToken("s3cret"))
	auth := "Authorization: Bearer s3cret"
	wantError(t, e.post("/api/lessons/pause-past-ttl/runs", ``), http.StatusUnauthorized, "unauthorized", "")
	wantError(t, e.post("/api/lessons/nope/runs", ``, auth), http.StatusNotFound, "not_found", "name")
	wantError(t, e.post("/api/lessons/pause-past-ttl/runs", ``, auth), http.StatusConflict, "no_agents", "")

	var list lessonsList
	mustJSON(t, e.get("/api/lessons"), &list)
	if len(list.Lessons) != len(catalogue.Catalogue) || list.Agents != 0 {
		t.Fatalf("GET /api/lessons: %d lessons, %d agents; want %d and 0", len(list.Lessons), list.Agents, len(catalogue.Catalogue))
	}
	if len(list.NotTaught) != len(catalogue.NotTaught) || list.NotTaught[0].WhyZh == "" {
		t.Errorf("GET /api/lessons: not_taught %+v, want internal/catalogue.NotTaught", list.NotTaught)
	}
	for i, l := range list.Lessons {
		if l.Name != catalogue.Catalogue[i].Name || l.Predict == "" {
			t.Errorf("lesson %d: %+v", i, l)
		}
	}
	// The dashboard's poll: the names and runs alone, in the catalogue's order.
	var runs lessonsList
	rec := e.get("/api/lessons?only=runs")
	mustJSON(t, rec, &runs)
	if len(runs.Lessons) != len(catalogue.Catalogue) || runs.Lessons[0].Name != catalogue.Catalogue[0].Name || runs.Lessons[0].Predict != "" {
		t.Errorf("GET /api/lessons?only=runs: %+v", runs.Lessons[:1])
	}
	if strings.Contains(rec.Body.String(), `"title"`) {
		t.Error("?only=runs carries the catalogue's texts")
	}
	wantError(t, e.get("/api/lessons?only=texts"), http.StatusBadRequest, "invalid_field", "only")
	wantError(t, e.post("/api/agents/lesson-claim", `{}`, auth), http.StatusBadRequest, "invalid_field", "agent_id")
	wantError(t, e.post("/api/lesson-runs/1/result", `{"agent_id":"a"}`, auth), http.StatusBadRequest, "invalid_field", "verdict")
	wantError(t, e.post("/api/lesson-runs/1/result", `{"agent_id":"a","verdict":"PASS","extra":1}`, auth), http.StatusBadRequest, "unknown_field", "extra")
	wantError(t, e.get("/api/lesson-runs/x"), http.StatusBadRequest, "invalid_id", "id")
	wantError(t, e.post("/api/lessons/pause-past-ttl/runs", `{"pace":"slow"}`, auth), http.StatusBadRequest, "invalid_field", "pace")
	wantError(t, e.post("/api/lessons/pause-past-ttl/runs", `{"pace":1}`, auth), http.StatusBadRequest, "invalid_field", "pace")
	wantError(t, e.post("/api/lessons/all/runs", `{"speed":"class"}`, auth), http.StatusBadRequest, "unknown_field", "speed")
	wantError(t, e.post("/api/lesson-runs/1/sales", `{"agent_id":"a"}`, auth), http.StatusBadRequest, "invalid_field", "sales")
	wantError(t, e.post("/api/lesson-runs/1/sales", `{"agent_id":"a","sales":["x"]}`, auth), http.StatusBadRequest, "invalid_field", "sales")
	wantError(t, e.post("/api/lesson-runs/1/sales", `{"agent_id":"a","sales":[1]}`), http.StatusUnauthorized, "unauthorized", "")
}

// The protocol the dashboard and the agents speak: queue, busy, claim one
// at a time, report, read back.
func TestLessonRunProtocol(t *testing.T) {
	e := lessonsEnv(t)
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agentA, agentB := "t-agent-a-"+tag, "t-agent-b-"+tag
	shop := "http://127.0.0.1:1"
	register(t, e, discovery.Member{ID: "t-shop-" + tag, Kind: discovery.KindShop, URL: shop, PID: 1})
	register(t, e, discovery.Member{ID: agentA, Kind: discovery.KindAgent, PID: 2})
	register(t, e, discovery.Member{ID: agentB, Kind: discovery.KindAgent, PID: 3})
	first, second := queueTwoLessons(t, e)
	claimOneAtATime(t, e, first, shop, agentA, agentB)
	reportAndFinish(t, e, first, agentA, agentB)
	listShowsTheLastRuns(t, e, first, second)
	claimNextAndQueueAll(t, e, second, agentB)
	e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'")
}

// lessonClaim is an agent's lesson claim: the run and the shops to run it
// against.
type lessonClaim struct {
	Run     catalogue.Run `json:"run"`
	Targets []string      `json:"targets"`
}

// queueTwoLessons queues del-without-owner at the class pace (a second
// run of it is busy) and zk-dead-holder.
func queueTwoLessons(t *testing.T, e *env) (first, second catalogue.Run) {
	rec := e.post("/api/lessons/del-without-owner/runs", `{"pace":"class"}`)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("queue: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &first)
	if first.Status != catalogue.StatusPending || first.Lesson != "del-without-owner" || first.ID == 0 || first.Pace != catalogue.PaceClass {
		t.Fatalf("queued %+v", first)
	}
	wantError(t, e.post("/api/lessons/del-without-owner/runs", ``), http.StatusConflict, "lesson_busy", "")
	mustJSON(t, e.post("/api/lessons/zk-dead-holder/runs", ``), &second)
	return first, second
}

// claimOneAtATime: A claims the first run, to run on the one shop; B gets
// nothing while A runs (one lesson at a time).
func claimOneAtATime(t *testing.T, e *env, first catalogue.Run, shop, agentA, agentB string) {
	var claim lessonClaim
	rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agentA))
	if rec.Code != http.StatusOK {
		t.Fatalf("claim: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &claim)
	if claim.Run.ID != first.ID || claim.Run.Status != catalogue.StatusRunning || len(claim.Targets) != 1 || claim.Targets[0] != shop ||
		claim.Run.Pace != catalogue.PaceClass {
		t.Fatalf("claimed %+v, want run %d running on [%s]", claim, first.ID, shop)
	}
	// One lesson at a time: B gets nothing while A runs.
	if rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agentB)); rec.Code != http.StatusNoContent {
		t.Fatalf("second claim while one runs: %d %s", rec.Code, rec.Body)
	}
}

// reportAndFinish: while the run runs, A reports the sales it created (B
// may not), then its result; GET returns both, and nothing may be
// reported after the result.
func reportAndFinish(t *testing.T, e *env, first catalogue.Run, agentA, agentB string) {
	salesPath := fmt.Sprintf("/api/lesson-runs/%d/sales", first.ID)
	for _, body := range []string{`[41]`, `[41]`, `[41,42]`} { // the same list twice changes no row: still accepted
		if rec := e.post(salesPath, `{"agent_id":"`+agentA+`","sales":`+body+`}`); rec.Code != http.StatusNoContent {
			t.Fatalf("sales %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	wantError(t, e.post(salesPath, `{"agent_id":"`+agentB+`","sales":[43]}`), http.StatusConflict, "not_running", "")
	var running catalogue.Run
	mustJSON(t, e.get(fmt.Sprintf("/api/lesson-runs/%d", first.ID)), &running)
	if fmt.Sprint(running.Sales) != "[41 42]" || running.Cases != nil {
		t.Fatalf("running: sales %v cases %v, want [41 42] and none", running.Sales, running.Cases)
	}
	path := fmt.Sprintf("/api/lesson-runs/%d/result", first.ID)
	wantError(t, e.post(path, `{"agent_id":"`+agentA+`","verdict":"OK"}`), http.StatusBadRequest, "invalid_field", "verdict")
	wantError(t, e.post(path, `{"agent_id":"`+agentB+`","verdict":"PASS"}`), http.StatusConflict, "not_running", "")
	result := `{"agent_id":"` + agentA + `","verdict":"PASS","observed":"seen","output":"all","sales":[41,42],` +
		`"cases":[{"sale_id":41,"name":"redis-no-owner","strategy":"redis-no-owner","initial_stock":10,"sold":6,` +
		`"expected_stock":4,"stock_left":5,"lost_updates":1,"violations":2,"verdict":"broken"}]}`
	if rec := e.post(path, result); rec.Code != http.StatusNoContent {
		t.Fatalf("result: %d %s", rec.Code, rec.Body)
	}
	wantError(t, e.post(path, `{"agent_id":"`+agentA+`","verdict":"FAIL"}`), http.StatusConflict, "not_running", "")

	var got catalogue.Run
	mustJSON(t, e.get(fmt.Sprintf("/api/lesson-runs/%d", first.ID)), &got)
	if got.Status != catalogue.StatusDone || got.Verdict != catalogue.VerdictPass || got.Observed != "seen" ||
		got.AgentID == nil || *got.AgentID != agentA || got.FinishedAt == nil || got.StartedAt == nil {
		t.Fatalf("after the result: %+v", got)
	}
	if len(got.Cases) != 1 || got.Cases[0].SaleID != 41 || got.Cases[0].StockLeft != 5 || got.Cases[0].ExpectedStock != 4 ||
		got.Cases[0].Verdict != "broken" || fmt.Sprint(got.Sales) != "[41 42]" {
		t.Fatalf("after the result: cases %+v sales %v", got.Cases, got.Sales)
	}
}

// listShowsTheLastRuns: GET /api/lessons shows each lesson's newest run
// and the live agents.
func listShowsTheLastRuns(t *testing.T, e *env, first, second catalogue.Run) {
	var list lessonsList
	mustJSON(t, e.get("/api/lessons"), &list)
	for _, l := range list.Lessons {
		switch l.Name {
		case "del-without-owner":
			if l.Last == nil || l.Last.ID != first.ID || l.Last.Verdict != catalogue.VerdictPass {
				t.Errorf("del-without-owner last %+v", l.Last)
			}
		case "zk-dead-holder":
			if l.Last == nil || l.Last.ID != second.ID || l.Last.Status != catalogue.StatusPending {
				t.Errorf("zk-dead-holder last %+v", l.Last)
			}
		}
	}
	if list.Agents < 2 {
		t.Errorf("agents %d, want >= 2", list.Agents)
	}
}

// claimNextAndQueueAll: B may now claim the next run; "all" queues every
// lesson not queued.
func claimNextAndQueueAll(t *testing.T, e *env, second catalogue.Run, agentB string) {
	var claim lessonClaim
	mustJSON(t, e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agentB)), &claim)
	if claim.Run.ID != second.ID {
		t.Fatalf("B claimed %+v, want run %d", claim.Run, second.ID)
	}
	var all struct {
		Runs []catalogue.Run `json:"runs"`
	}
	mustJSON(t, e.post("/api/lessons/all/runs", ``), &all)
	if len(all.Runs) != len(catalogue.Catalogue)-1 { // zk-dead-holder is still running
		t.Errorf("all queued %d runs, want %d", len(all.Runs), len(catalogue.Catalogue)-1)
	}
}

// An observation past what the store keeps is clipped on a character
// boundary: the TEXT column refuses half a character, and the agent's
// result must not turn into a 503 for it.
func TestLessonResultClipsOnACharacter(t *testing.T) {
	e := lessonsEnv(t)
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agent := "t-agent-clip-" + tag
	register(t, e, discovery.Member{ID: "t-shop-" + tag, Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1})
	register(t, e, discovery.Member{ID: agent, Kind: discovery.KindAgent, PID: 2})
	var run catalogue.Run
	mustJSON(t, e.post("/api/lessons/del-without-owner/runs", ``), &run)
	t.Cleanup(func() { e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'") })
	if rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agent)); rec.Code != http.StatusOK {
		t.Fatalf("claim: %d %s", rec.Code, rec.Body)
	}
	observed := "a" + strings.Repeat("é", 30000) // 60001 bytes: the store's 60000 end inside an é
	rec := e.post(fmt.Sprintf("/api/lesson-runs/%d/result", run.ID),
		fmt.Sprintf(`{"agent_id":%q,"verdict":"PASS","observed":%q}`, agent, observed))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("result: %d %s", rec.Code, rec.Body)
	}
	var got catalogue.Run
	mustJSON(t, e.get(fmt.Sprintf("/api/lesson-runs/%d", run.ID)), &got)
	if got.Verdict != catalogue.VerdictPass || !strings.HasPrefix(observed, got.Observed) || len(got.Observed) != 59999 {
		t.Fatalf("stored %d bytes of observation (verdict %q), want the 59999 of whole characters", len(got.Observed), got.Verdict)
	}
}

// While a class-paced lesson pauses between two cases, its agent reports
// what the next case shows with the sales: every replica serves it on the
// run (GET /api/lesson-runs/{id}, the lessons' poll) until the run ends.
// Bad input is refused naming the member, and changes nothing.
func TestLessonSalesNext(t *testing.T) {
	e := lessonsEnv(t, withToken("s3cret"))
	auth := "Authorization: Bearer s3cret"
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agent := "t-agent-next-" + tag
	register(t, e, discovery.Member{ID: "t-shop-" + tag, Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1})
	register(t, e, discovery.Member{ID: agent, Kind: discovery.KindAgent, PID: 2})
	t.Cleanup(func() { e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'") })
	var run catalogue.Run
	mustJSON(t, e.post("/api/lessons/mutex-across-replicas/runs", `{"pace":"class"}`, auth), &run)
	if rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agent), auth); rec.Code != http.StatusOK {
		t.Fatalf("claim: %d %s", rec.Code, rec.Body)
	}
	if rec := e.get(fmt.Sprintf("/api/lesson-runs/%d", run.ID)); !strings.Contains(rec.Body.String(), `"next":null`) {
		t.Fatalf("a run without a next: %s, want \"next\":null", rec.Body)
	}
	n := &nextRun{t: t, e: e, auth: auth, agent: agent, runID: run.ID, path: fmt.Sprintf("/api/lesson-runs/%d/sales", run.ID),
		at: time.Now().Add(8 * time.Second).UTC().Truncate(time.Millisecond),
		en: "the same buyers on db-pessimistic, which locks the row: watch them wait in turn",
		zh: "同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁"}
	good := n.recorded()
	n.refusalsChangeNothing(good)
	n.keptThenReplaced()
	n.endedByTheResult()
}

// nextRun is TestLessonSalesNext's running lesson, its agent, and the next
// case it reports first.
type nextRun struct {
	t           *testing.T
	e           *env
	auth, agent string
	runID       uint64
	path        string // the run's sales report
	at          time.Time
	en, zh      string
}

// read is the run as GET /api/lesson-runs/{id} shows it.
func (n *nextRun) read() catalogue.Run {
	n.t.Helper()
	var r catalogue.Run
	mustJSON(n.t, n.e.get(fmt.Sprintf("/api/lesson-runs/%d", n.runID)), &r)
	return r
}

// body is a sales report of sale 41 with next.
func (n *nextRun) body(next string) string {
	return fmt.Sprintf(`{"agent_id":%q,"sales":[41],"next":%s}`, n.agent, next)
}

// recorded reports the next case with the sales: the run and the
// dashboard's poll carry it. It returns the next as sent.
func (n *nextRun) recorded() string {
	t, en, zh, at := n.t, n.en, n.zh, n.at
	good := fmt.Sprintf(`{"en":%q,"zh":%q,"at":%q}`, en, zh, at.Format(time.RFC3339Nano))
	if rec := n.e.post(n.path, n.body(good), n.auth); rec.Code != http.StatusNoContent {
		t.Fatalf("sales with next: %d %s", rec.Code, rec.Body)
	}
	r := n.read()
	if r.Next == nil || r.Next.En != en || r.Next.Zh != zh || !r.Next.At.Equal(at) || fmt.Sprint(r.Sales) != "[41]" {
		t.Fatalf("after the report: next %+v sales %v", r.Next, r.Sales)
	}
	// The dashboard's poll carries it too.
	var poll lessonsList
	mustJSON(t, n.e.get("/api/lessons?only=runs"), &poll)
	found := false
	for _, l := range poll.Lessons {
		if l.Name == "mutex-across-replicas" {
			found = l.Last != nil && l.Last.Next != nil && l.Last.Next.Zh == zh
		}
	}
	if !found {
		t.Errorf("GET /api/lessons?only=runs does not carry the run's next")
	}
	return good
}

// refusalsChangeNothing: a bad next is refused naming the member at
// fault, as are a report without the token and one from another agent;
// none changes the run.
func (n *nextRun) refusalsChangeNothing(good string) {
	t, en, zh, at := n.t, n.en, n.zh, n.at
	far := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	long := strings.Repeat("锁", runsapi.MaxNextChars+1)
	for _, c := range []struct{ next, code, field string }{
		{`"soon"`, "invalid_field", "next"},
		{`[1]`, "invalid_field", "next"},
		{`5`, "invalid_field", "next"},
		{`{}`, "invalid_field", "next.en"},
		{fmt.Sprintf(`{"zh":%q,"at":%q}`, zh, at.Format(time.RFC3339)), "invalid_field", "next.en"},
		{fmt.Sprintf(`{"en":%q,"at":%q}`, en, at.Format(time.RFC3339)), "invalid_field", "next.zh"},
		{fmt.Sprintf(`{"en":"  ","zh":%q,"at":%q}`, zh, at.Format(time.RFC3339)), "invalid_field", "next.en"},
		{fmt.Sprintf(`{"en":5,"zh":%q,"at":%q}`, zh, at.Format(time.RFC3339)), "invalid_field", "next.en"},
		{fmt.Sprintf(`{"en":"two\nlines","zh":%q,"at":%q}`, zh, at.Format(time.RFC3339)), "invalid_field", "next.en"},
		{fmt.Sprintf(`{"en":%q,"zh":%q,"at":%q}`, en, long, at.Format(time.RFC3339)), "invalid_field", "next.zh"},
		{fmt.Sprintf(`{"en":%q,"zh":%q}`, en, zh), "invalid_field", "next.at"},
		{fmt.Sprintf(`{"en":%q,"zh":%q,"at":"in 8 s"}`, en, zh), "invalid_field", "next.at"},
		{fmt.Sprintf(`{"en":%q,"zh":%q,"at":1764151208}`, en, zh), "invalid_field", "next.at"},
		{fmt.Sprintf(`{"en":%q,"zh":%q,"at":%q}`, en, zh, far), "invalid_field", "next.at"},
		{fmt.Sprintf(`{"en":%q,"zh":%q,"at":%q,"extra":1}`, en, zh, at.Format(time.RFC3339)), "unknown_field", "next.extra"},
		{fmt.Sprintf(`{"en":%q,"en":%q,"zh":%q,"at":%q}`, en, en, zh, at.Format(time.RFC3339)), "invalid_field", "next.en"},
		{`{"en":"x"`, "invalid_json", ""},
	} {
		rec := n.e.post(n.path, fmt.Sprintf(`{"agent_id":%q,"sales":[41,42],"next":%s}`, n.agent, strings.ReplaceAll(c.next, "\n", `\n`)), n.auth)
		wantError(t, rec, http.StatusBadRequest, c.code, c.field)
	}
	// Without the token, and from another agent: refused as the sales are.
	wantError(t, n.e.post(n.path, n.body(good)), http.StatusUnauthorized, "unauthorized", "")
	other := fmt.Sprintf(`{"agent_id":"someone-else","sales":[43],"next":{"en":"x","zh":"x","at":%q}}`, at.Format(time.RFC3339))
	wantError(t, n.e.post(n.path, other, n.auth), http.StatusConflict, "not_running", "")
	if r := n.read(); r.Next == nil || r.Next.En != en || fmt.Sprint(r.Sales) != "[41]" {
		t.Fatalf("the refusals changed the run: next %+v sales %v", r.Next, r.Sales)
	}
}

// keptThenReplaced: sales alone (or a null next) keep the next; a newer
// one replaces it.
func (n *nextRun) keptThenReplaced() {
	t, en, at := n.t, n.en, n.at
	for _, b := range []string{fmt.Sprintf(`{"agent_id":%q,"sales":[41,42]}`, n.agent), n.body(`null`)} {
		if rec := n.e.post(n.path, b, n.auth); rec.Code != http.StatusNoContent {
			t.Fatalf("%s: %d %s", b, rec.Code, rec.Body)
		}
	}
	if r := n.read(); r.Next == nil || r.Next.En != en {
		t.Fatalf("sales alone dropped the next: %+v", r.Next)
	}
	later := fmt.Sprintf(`{"en":"the fix","zh":"修复","at":%q}`, at.Add(30*time.Second).Format(time.RFC3339))
	if rec := n.e.post(n.path, n.body(later), n.auth); rec.Code != http.StatusNoContent {
		t.Fatalf("newer next: %d %s", rec.Code, rec.Body)
	}
	if r := n.read(); r.Next == nil || r.Next.En != "the fix" || !r.Next.At.Equal(at.Add(30*time.Second).Truncate(time.Second)) {
		t.Fatalf("after a newer next: %+v", r.Next)
	}
}

// endedByTheResult: the result ends the run and its next.
func (n *nextRun) endedByTheResult() {
	t := n.t
	if rec := n.e.post(fmt.Sprintf("/api/lesson-runs/%d/result", n.runID), fmt.Sprintf(`{"agent_id":%q,"verdict":"PASS"}`, n.agent), n.auth); rec.Code != http.StatusNoContent {
		t.Fatalf("result: %d %s", rec.Code, rec.Body)
	}
	if r := n.read(); r.Next != nil || r.Status != catalogue.StatusDone {
		t.Fatalf("after the result: status %s next %+v, want done and none", r.Status, r.Next)
	}
}
