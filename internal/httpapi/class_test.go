package httpapi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/classroom"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// classEnv is an API over its own database, with the admin token set:
// the trainer's writes carry it, the phones' votes do not.
func classEnv(t *testing.T) (*env, string) {
	t.Helper()
	db := testenv.DB(t, "httpapi_class")
	e := newEnv(t, withToken("s3cret"), func(c *envConfig) { c.db = db })
	if err := db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'").Error; err != nil {
		t.Fatal(err)
	}
	return e, "Authorization: Bearer s3cret"
}

// voteFrom is a phone's PUT of body, from address addr.
func (e *env) voteFrom(addr string, question uint64, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPut, fmt.Sprintf("/api/class/questions/%d/vote", question), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = addr + ":40000"
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

func phone() string { return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64()) }

func (e *env) question(t *testing.T, id uint64) classroom.Question {
	t.Helper()
	var q classroom.Question
	mustJSON(t, e.get(fmt.Sprintf("/api/class/questions/%d", id)), &q)
	return q
}

// ask opens a question in a new session.
func (e *env) ask(t *testing.T, auth, body string) classroom.Question {
	t.Helper()
	var sess classroom.Session
	rec := e.post("/api/class/sessions", `{"title":"Tuesday, room 3"}`, auth)
	if rec.Code != http.StatusCreated {
		t.Fatalf("session: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &sess)
	rec = e.post(fmt.Sprintf("/api/class/sessions/%d/questions", sess.ID), body, auth)
	if rec.Code != http.StatusCreated {
		t.Fatalf("ask %s: %d %s", body, rec.Code, rec.Body)
	}
	var q classroom.Question
	mustJSON(t, rec, &q)
	return q
}

// A question of a lesson's case: its setup and the four outcomes in both
// languages; votes counted one per phone (a change is not a second vote),
// their choices hidden until the reveal; bad votes refused naming the
// member, changing nothing; a full question refuses a new phone.
func TestClassVotesHiddenUntilTheReveal(t *testing.T) {
	e, auth := classEnv(t)
	q := e.ask(t, auth, `{"lesson":"mutex-across-replicas","case":1,"max_votes":3}`)
	want := catalogue.CaseQuestions("mutex-across-replicas")[0].Setup
	if q.Setup != want || len(q.Choices) != len(catalogue.Outcomes) || q.Choices[0].Zh == "" || q.Status != classroom.StatusOpen ||
		q.Pace != catalogue.PaceClass || q.Tally != nil {
		t.Fatalf("asked %+v", q)
	}
	a, b, c := phone(), phone(), phone()
	for _, v := range []struct{ addr, voter, outcome string }{
		{"10.0.0.1", a, "broken"}, {"10.0.0.2", b, "holds"}, {"10.0.0.1", a, "overlapped_safe"}, {"10.0.0.3", c, "broken"},
	} {
		if rec := e.voteFrom(v.addr, q.ID, fmt.Sprintf(`{"voter":%q,"outcome":%q}`, v.voter, v.outcome)); rec.Code != http.StatusOK {
			t.Fatalf("vote %+v: %d %s", v, rec.Code, rec.Body)
		}
	}
	got := e.question(t, q.ID)
	if got.Votes != 3 || got.Tally != nil || got.Status != classroom.StatusClosed {
		t.Fatalf("after 3 phones (one changed its vote), max 3: votes %d tally %v status %s; want 3, hidden, closed", got.Votes, got.Tally, got.Status)
	}
	if body := e.get(fmt.Sprintf("/api/class/questions/%d", q.ID)).Body.String(); strings.Contains(body, "overlapped_safe\":1") {
		t.Fatalf("the tally shows before the reveal: %s", body)
	}
	for _, bad := range []struct{ body, code, field string }{
		{`{"voter":"` + phone() + `","outcome":"maybe"}`, "invalid_field", "outcome"},
		{`{"voter":"ABC","outcome":"holds"}`, "invalid_field", "voter"},
		{`{"voter":"` + strings.ToUpper(a) + `","outcome":"holds"}`, "invalid_field", "voter"},
		{`{"outcome":"holds"}`, "invalid_field", "voter"},
		{`{"voter":"` + a + `","outcome":"holds","name":"Ann"}`, "unknown_field", "name"},
		{`{"voter":1,"outcome":"holds"}`, "invalid_field", "voter"},
		{`[]`, "invalid_json", ""},
	} {
		wantError(t, e.voteFrom("10.0.0.4", q.ID, bad.body), http.StatusBadRequest, bad.code, bad.field)
	}
	wantError(t, e.voteFrom("10.0.0.4", 1<<40, `{"voter":"`+a+`","outcome":"holds"}`), http.StatusNotFound, "not_found", "id")
	wantError(t, e.voteFrom("10.0.0.4", q.ID, `{"voter":"`+phone()+`","outcome":"holds"}`), http.StatusConflict, "question_closed", "")
	// A phone that voted may still change its mind while the question is full.
	if rec := e.voteFrom("10.0.0.2", q.ID, `{"voter":"`+b+`","outcome":"broken"}`); rec.Code != http.StatusOK {
		t.Fatalf("change on a full question: %d %s", rec.Code, rec.Body)
	}
	var n int64
	e.db.Raw("SELECT COUNT(*) FROM class_votes WHERE question_id = ?", q.ID).Scan(&n)
	if n != 3 {
		t.Fatalf("%d vote rows, want 3: a refused vote wrote", n)
	}
}

// A flood from one address gets 429 once past VoteRateIP a second, while
// another address still votes.
func TestClassVoteFloodIsRefused(t *testing.T) {
	e, auth := classEnv(t)
	q := e.ask(t, auth, `{"lesson":"ttl-shorter-than-work","case":2}`)
	limited := 0
	for range 4 * VoteRateIP {
		rec := e.voteFrom("10.0.1.1", q.ID, `{"voter":"`+phone()+`","outcome":"holds"}`)
		switch rec.Code {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("flood vote: %d %s", rec.Code, rec.Body)
		}
	}
	if limited == 0 {
		t.Fatalf("%d votes from one address went through: none refused", 4*VoteRateIP)
	}
	if rec := e.voteFrom("10.0.1.2", q.ID, `{"voter":"`+phone()+`","outcome":"holds"}`); rec.Code != http.StatusOK {
		t.Fatalf("another address after the flood: %d %s", rec.Code, rec.Body)
	}
}

// The reveal: without an agent it is refused and the question given back;
// with one it starts the lesson at the class pace, closes the votes and
// shows the tally; a second reveal is refused; the agent's result fills
// in what the case showed, beside the tally (also in the CSV).
func TestClassRevealStartsTheRun(t *testing.T) {
	e, auth := classEnv(t)
	q := e.ask(t, auth, `{"lesson":"mutex-across-replicas","case":1}`)
	a := phone()
	e.voteFrom("10.0.2.1", q.ID, `{"voter":"`+a+`","outcome":"broken"}`)
	e.voteFrom("10.0.2.2", q.ID, `{"voter":"`+phone()+`","outcome":"holds"}`)
	reveal := fmt.Sprintf("/api/class/questions/%d/reveal", q.ID)
	wantError(t, e.post(reveal, ``), http.StatusUnauthorized, "unauthorized", "")
	wantError(t, e.post(reveal, ``, auth), http.StatusConflict, "no_agents", "")
	if got := e.question(t, q.ID); got.Status != classroom.StatusOpen || got.LessonRunID != nil {
		t.Fatalf("after a refused reveal: %+v, want open again", got)
	}
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agent := "t-class-agent-" + tag
	register(t, e, discovery.Member{ID: "t-class-shop-" + tag, Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1})
	register(t, e, discovery.Member{ID: agent, Kind: discovery.KindAgent, PID: 2})
	var got classroom.Question
	rec := e.post(reveal, ``, auth)
	if rec.Code != http.StatusOK {
		t.Fatalf("reveal: %d %s", rec.Code, rec.Body)
	}
	mustJSON(t, rec, &got)
	if got.Status != classroom.StatusRevealed || got.LessonRunID == nil || got.Tally["broken"] != 1 || got.Tally["holds"] != 1 ||
		got.Tally["stopped"] != 0 || got.Observed == nil || got.Observed.Done {
		t.Fatalf("revealed %+v", got)
	}
	wantError(t, e.post(reveal, ``, auth), http.StatusConflict, "already_revealed", "")
	wantError(t, e.voteFrom("10.0.2.1", q.ID, `{"voter":"`+a+`","outcome":"holds"}`), http.StatusConflict, "question_closed", "")
	finishLessonRun(t, e, agent, *got.LessonRunID, auth)
	got = e.question(t, q.ID)
	if o := got.Observed; o == nil || !o.Done || o.Outcome != "broken" || o.SaleID != 41 || o.Reason.En == "" {
		t.Fatalf("observed %+v, want the case's broken verdict on sale 41", got.Observed)
	}
	checkCSV(t, e, q.SessionID)
}

// finishLessonRun claims run as agent and reports its first case broken.
func finishLessonRun(t *testing.T, e *env, agent string, run uint64, auth string) {
	t.Helper()
	var claim lessonClaim
	mustJSON(t, e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agent), auth), &claim)
	if claim.Run.ID != run || claim.Run.Pace != catalogue.PaceClass {
		t.Fatalf("claimed %+v, want run %d at the class pace", claim.Run, run)
	}
	result := `{"agent_id":"` + agent + `","verdict":"PASS","observed":"seen","output":"all","sales":[41,42],` +
		`"cases":[{"sale_id":41,"name":"redis-no-owner","strategy":"redis-no-owner","initial_stock":10,"sold":6,` +
		`"expected_stock":4,"stock_left":5,"lost_updates":1,"violations":2,"verdict":"broken","reason":"lost 1"}]}`
	if rec := e.post(fmt.Sprintf("/api/lesson-runs/%d/result", run), result, auth); rec.Code != http.StatusNoContent {
		t.Fatalf("result: %d %s", rec.Code, rec.Body)
	}
}

// checkCSV: the session's export has a row per question with its tally,
// what the run showed and how many chose it.
func checkCSV(t *testing.T, e *env, session uint64) {
	t.Helper()
	rec := e.get(fmt.Sprintf("/api/class/sessions/%d/export.csv", session))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", rec.Code, rec.Header())
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(rec.Body.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("export: %v, %d rows:\n%s", err, len(rows), rec.Body)
	}
	col := map[string]string{}
	for i, h := range rows[0] {
		col[h] = rows[1][i]
	}
	if col["lesson"] != "mutex-across-replicas" || col["votes"] != "2" || col["broken"] != "1" || col["holds"] != "1" ||
		col["observed"] != "broken" || col["chose_observed"] != "1" || col["session_title"] != "Tuesday, room 3" || col["setup_zh"] == "" {
		t.Fatalf("export row %v", col)
	}
}

// Asking: a run set up on the Run form (one strategy) gets its setup in a
// sentence; bad questions are refused naming the member, and write
// nothing.
func TestClassAskRefusals(t *testing.T) {
	e, auth := classEnv(t)
	q := e.ask(t, auth, `{"run":{"strategy":"db-pessimistic","stock":20,"buyers":60,"concurrency":2,"work_ms":1500,"fencing":true}}`)
	if !strings.Contains(q.Setup.En, "db-pessimistic sells 20 units to 60 buyers, 2 at once, 1500 ms of work in the lock") ||
		!strings.Contains(q.Setup.En, "fencing on") || !strings.Contains(q.Setup.Zh, "防护令牌开") || q.Lesson != "" || len(q.Run) == 0 {
		t.Fatalf("run question %+v", q)
	}
	path := fmt.Sprintf("/api/class/sessions/%d/questions", q.SessionID)
	var before int64
	e.db.Raw("SELECT COUNT(*) FROM class_questions").Scan(&before)
	for _, c := range []struct{ body, code, field string }{
		{`{}`, "invalid_field", "lesson"},
		{`{"lesson":"nope","case":1}`, "invalid_field", "lesson"},
		{`{"lesson":"mutex-across-replicas","case":9}`, "invalid_field", "case"},
		{`{"lesson":"mutex-across-replicas"}`, "invalid_field", "case"},
		{`{"lesson":"mutex-across-replicas","case":1,"minutes":0.5}`, "invalid_field", "minutes"},
		{`{"lesson":"mutex-across-replicas","case":1,"minutes":61}`, "invalid_field", "minutes"},
		{`{"lesson":"mutex-across-replicas","case":1,"max_votes":-1}`, "invalid_field", "max_votes"},
		{`{"lesson":"mutex-across-replicas","case":1,"pace":"slow"}`, "invalid_field", "pace"},
		{`{"run":{"strategy":"all","stock":20,"buyers":60}}`, "invalid_field", "strategy"},
		{`{"run":{"strategy":"db-pessimistic","stock":20}}`, "invalid_field", "buyers"},
		{`{"run":{"strategy":"db-pessimistic","stock":20,"buyers":60},"lesson":"mutex-across-replicas","case":1}`, "invalid_field", "run"},
		{`{"lesson":"mutex-across-replicas","case":1,"who":1}`, "unknown_field", "who"},
	} {
		wantError(t, e.post(path, c.body, auth), http.StatusBadRequest, c.code, c.field)
	}
	wantError(t, e.post("/api/class/sessions/999999999/questions", `{"lesson":"mutex-across-replicas","case":1}`, auth),
		http.StatusNotFound, "not_found", "id")
	wantError(t, e.post("/api/class/sessions", `{"title":"`+strings.Repeat("x", 101)+`"}`, auth), http.StatusBadRequest, "invalid_field", "title")
	wantError(t, e.get("/api/class/questions/x"), http.StatusBadRequest, "invalid_id", "id")
	var after int64
	e.db.Raw("SELECT COUNT(*) FROM class_questions").Scan(&after)
	if after != before {
		t.Fatalf("%d questions after refusals, %d before", after, before)
	}
	// The vote page's link: on loopback, not shared, and never the token.
	var info struct {
		Shared bool   `json:"shared"`
		URL    string `json:"url"`
	}
	mustJSON(t, e.get(fmt.Sprintf("/api/class/questions/%d/share?lang=zh", q.ID)), &info)
	if strings.Contains(info.URL, "s3cret") {
		t.Fatalf("share %+v", info)
	}
	wantError(t, e.get(fmt.Sprintf("/api/class/questions/%d/share?lang=fr", q.ID)), http.StatusBadRequest, "invalid_field", "lang")
}
