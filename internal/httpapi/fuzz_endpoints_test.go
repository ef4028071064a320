package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/httpapi/runsapi"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// The endpoints that write anything, fuzzed on their bodies: whatever comes
// in, never a 5xx, every 4xx the JSON error shape naming the member at
// fault, and a 4xx writes nothing. They share a database of their own
// (seckill_test_httpapi_fuzz), so that their snapshots see no other test's
// writes, and one named lock, so that fuzz workers take turns.

// fuzzEnv is newEnv over the fuzz targets' database.
func fuzzEnv(f *testing.F, opts ...func(*envConfig)) *env {
	db := testenv.DB(f, "httpapi_fuzz")
	return newEnv(f, append(opts, func(c *envConfig) { c.db = db })...)
}

// endpoint is one endpoint under fuzzing.
type endpoint struct {
	method, path string
	// prepare runs before each request (keeps agents alive); may be nil.
	prepare func(t *testing.T)
	// state snapshots everything the endpoint may write: a 4xx must leave
	// it as it was.
	state func(t *testing.T) string
	// after runs after each request with its status (clears what a
	// success wrote); may be nil.
	after func(t *testing.T, status int)
	// header is a header line for each request ("Name: value"); may be nil.
	header func() string
}

// fuzzEndpoint fuzzes ep's body from seeds and fuzzGarbage.
func fuzzEndpoint(f *testing.F, e *env, ep endpoint, seeds ...string) {
	for _, s := range append(seeds, fuzzGarbage...) {
		f.Add(s)
	}
	serialize := crossProcessLock(f, e)
	f.Fuzz(func(t *testing.T, body string) {
		defer serialize(t)()
		if ep.prepare != nil {
			ep.prepare(t)
		}
		before := ep.state(t)
		var header []string
		if ep.header != nil {
			header = append(header, ep.header())
		}
		rec := e.do(ep.method, ep.path, strings.NewReader(body), header...)
		checkFuzzResponse(t, rec.Code, rec.Body.Bytes(), body)
		if after := ep.state(t); rec.Code >= 400 && after != before {
			t.Fatalf("%d %s for %q, yet it wrote:\nbefore %s\nafter  %s", rec.Code, rec.Body, clip.Input(body), before, after)
		}
		if ep.after != nil {
			ep.after(t, rec.Code)
		}
	})
}

// rows renders every row query returns, one line each: a snapshot.
func (e *env) rows(t *testing.T, query string, args ...any) string {
	t.Helper()
	rs, err := e.db.Raw(query, args...).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out strings.Builder
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		fmt.Fprintln(&out, vals...)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Seeds of agent ids: the longest, one byte over, control characters, and
// characters of several bytes.
var agentIDSeeds = []string{
	`"` + strings.Repeat("a", runsapi.MaxAgentIDLen) + `"`, `"` + strings.Repeat("a", runsapi.MaxAgentIDLen+1) + `"`,
	`"` + strings.Repeat("a", 1000) + `"`, `"` + strings.Repeat("é", 33) + `"`, `"` + strings.Repeat("🛒", 16) + `"`,
	`"line\nbreak"`, `"nul\u0000"`, `"del\u007f"`, `"c1\u0085"`, `""`, `" "`, `null`, `7`, `["a"]`, `{"a":1}`,
}

func FuzzAgentHeartbeat(f *testing.F) {
	e := fuzzEnv(f)
	seeds := []string{
		`{"agent_id":"fuzz-agent","pid":42}`, `{"agent_id":"fuzz-agent","pid":42,"gone":true}`,
		`{"agent_id":"fuzz-agent","pid":-1}`, `{"agent_id":"fuzz-agent","pid":2147483648}`,
		`{"agent_id":"fuzz-agent","pid":1e3}`, `{"agent_id":"fuzz-agent","pid":"1"}`,
		`{"agent_id":"fuzz-agent","gone":"yes"}`, `{"pid":1}`, `{"agent_id":"fuzz-agent","url":"http://x"}`,
	}
	for _, id := range agentIDSeeds {
		seeds = append(seeds, `{"agent_id":`+id+`,"pid":1}`)
	}
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: "/api/agents/heartbeat",
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT id, kind, url, pid, last_seen FROM replicas ORDER BY id")
		},
		after: func(t *testing.T, status int) {
			if status < 300 {
				e.db.Exec("DELETE FROM replicas WHERE kind = 'agent'")
			}
		},
	}, seeds...)
}

// fuzzMembers keeps one shop and one agent alive in e's discovery (a run
// needs both); the agent's id.
func fuzzMembers(t testing.TB, e *env) string {
	agent := "fuzz-agent-members"
	for _, m := range []discovery.Member{{ID: "fuzz-shop", Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1},
		{ID: agent, Kind: discovery.KindAgent, PID: 2}} {
		if err := discovery.Register(context.Background(), e.db, m); err != nil {
			t.Fatal(err)
		}
	}
	return agent
}

// finishRuns ends the runs left open, so that claims see only a test's own.
func finishRuns(e *env) {
	e.db.Exec("UPDATE runs SET status = 'failed' WHERE status IN ('queued', 'running')")
}

func FuzzCreateRun(f *testing.F) {
	e := fuzzEnv(f)
	finishRuns(e)
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: "/api/runs",
		prepare: func(t *testing.T) { fuzzMembers(t, e) },
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT (SELECT COALESCE(MAX(id), 0) FROM runs), (SELECT COALESCE(MAX(id), 0) FROM sales), (SELECT COUNT(*) FROM run_shares)")
		},
		after: func(t *testing.T, status int) { finishRuns(e) },
	},
		`{"strategy":"db-pessimistic","stock":3,"buyers":10}`,
		`{"strategy":"all","stock":5,"buyers":10,"rate":100}`,
		`{"strategy":"none","stock":5,"buyers":10,"rate":0}`,
		`{"strategy":"none","stock":5,"buyers":10,"rate":1e400}`,
		`{"strategy":"none","stock":5,"buyers":10,"rate":-0.0}`,
		`{"strategy":"none","stock":5,"buyers":10,"rate":1e-300}`,
		`{"strategy":"none","stock":5,"buyers":0}`,
		`{"strategy":"none","stock":5,"buyers":9223372036854775807}`,
		`{"strategy":"none","stock":5,"buyers":10,"concurrency":0}`,
		`{"strategy":"none","stock":5,"buyers":10,"replicas":2}`,
		`{"strategy":"none","stock":5,"buyers":10,"replicas":-9223372036854775808}`,
		`{"strategy":"none","stock":5,"buyers":10,"opens_in_ms":9223372036854775807}`,
		`{"strategy":"none","stock":5,"buyers":10,"opens_at":"0000-01-01T00:00:00Z"}`,
		`{"strategy":"none","stock":5,"buyers":10,"name":"x"}`,
		`{"strategy":"db-pessimistic","stock":5,"buyers":10,"order_mode":"async"}`,
		`{"strategy":"all","stock":5,"buyers":10,"order_mode":"async","watchdog":false}`,
		`{"strategy":"none","stock":5,"buyers":10,"pay_within_ms":499}`,
		`{"strategy":"`+strings.Repeat("x", 5000)+`","stock":5,"buyers":10}`,
	)
}

func FuzzReportShare(f *testing.F) {
	e := fuzzEnv(f)
	finishRuns(e)
	fuzzMembers(f, e)
	path, agent := claimedShare(f, e)
	h := hdrhistogram.New(1, 1e9, 3)
	_ = h.RecordValues(2000, 10)
	enc, _ := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	id := quote(agent)
	kinds := make([]string, 33)
	for i := range kinds {
		kinds[i] = fmt.Sprintf(`"k%02d":1`, i)
	}
	// 32 kinds of 1900 '<', each stored as six bytes (\u003c): past TEXT.
	wide := make([]string, 32)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"%02d%s":1`, i, strings.Repeat("<", 1900))
	}
	seeds := []string{
		`{"agent_id":` + id + `,"requests":10,"orders":3,"sold_out":7,"errors":{},"elapsed_ms":500,"histogram":` + quote(string(enc)) + `}`,
		`{"agent_id":` + id + `,"requests":4,"orders":3,"accepted":3,"layers":{"queue":3,"lock":1}}`,
		`{"agent_id":` + id + `,"requests":-1}`,
		`{"agent_id":` + id + `,"elapsed_ms":-9223372036854775808}`,
		`{"agent_id":` + id + `,"errors":{"lock_timeout":-1}}`,
		`{"agent_id":` + id + `,"errors":{"":1}}`,
		`{"agent_id":` + id + `,"errors":{` + strings.Join(kinds, ",") + `}}`,
		`{"agent_id":` + id + `,"errors":{` + strings.Join(wide, ",") + `}}`,
		`{"agent_id":` + id + `,"errors":{` + quote(strings.Repeat("<", 65)) + `:1}}`,
		`{"agent_id":` + id + `,"errors":{` + quote(strings.Repeat("<", 64)) + `:9223372036854775807}}`,
		`{"agent_id":` + id + `,"errors":{"x":1.5}}`,
		`{"agent_id":` + id + `,"errors":[]}`,
		`{"agent_id":` + id + `,"histogram":"AAAA"}`,
		`{"agent_id":` + id + `,"histogram":` + quote(strings.Repeat("\xff", 30000)) + `}`,
		`{"agent_id":` + id + `,"layers":{"x":-1}}`,
		`{"agent_id":` + id + `,"done":"yes"}`,
		`{"agent_id":"someone-else","requests":1}`,
		`{"agent_id":` + id + `,"requests":1,"done":true}`,
	}
	for _, a := range agentIDSeeds {
		seeds = append(seeds, `{"agent_id":`+a+`,"requests":1}`)
	}
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: path,
		state: func(t *testing.T) string {
			return e.rows(t, `SELECT sh.requests, sh.orders, sh.sold_out, sh.errors, sh.elapsed_ms, sh.histogram, sh.done,
  sh.reported_at, st.deadline FROM run_shares sh JOIN run_steps st ON st.run_id = sh.run_id AND st.step = sh.step
WHERE sh.agent_id = ?`, agent)
		},
	}, seeds...)
}

func FuzzLessonResult(f *testing.F) {
	e := fuzzEnv(f)
	e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'")
	agent := fuzzMembers(f, e)
	var run catalogue.Run
	mustJSON(f, e.post("/api/lessons/del-without-owner/runs", ``), &run)
	f.Cleanup(func() { e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'") })
	if rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agent)); rec.Code != http.StatusOK {
		f.Fatalf("claim: %d %s", rec.Code, rec.Body)
	}
	id := quote(agent)
	seeds := []string{
		`{"agent_id":` + id + `,"verdict":"OK"}`,
		`{"agent_id":` + id + `,"verdict":"pass"}`,
		`{"agent_id":` + id + `,"verdict":""}`,
		`{"agent_id":` + id + `,"verdict":"PASS","observed":5}`,
		`{"agent_id":` + id + `,"verdict":"PASS","observed":` + quote("a"+strings.Repeat("é", 30000)) + `}`,
		`{"agent_id":` + id + `,"verdict":"PASS","output":` + quote(strings.Repeat("\xff", 60000)) + `}`,
		`{"agent_id":"someone-else","verdict":"PASS"}`,
		`{"verdict":"PASS"}`,
		`{"agent_id":` + id + `,"verdict":"FAIL","observed":"seen","output":"all"}`,
	}
	for _, a := range agentIDSeeds {
		seeds = append(seeds, `{"agent_id":`+a+`,"verdict":"PASS"}`)
	}
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: fmt.Sprintf("/api/lesson-runs/%d/result", run.ID),
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT status, verdict, observed, output, agent_id, finished_at FROM lesson_runs WHERE id = ?", run.ID)
		},
	}, seeds...)
}

// FuzzLessonSales: the running lesson's sales and its next case; a refusal
// changes neither.
func FuzzLessonSales(f *testing.F) {
	e := fuzzEnv(f)
	e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'")
	agent := fuzzMembers(f, e)
	var run catalogue.Run
	mustJSON(f, e.post("/api/lessons/mutex-across-replicas/runs", `{"pace":"class"}`), &run)
	f.Cleanup(func() { e.db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'") })
	if rec := e.post("/api/agents/lesson-claim", fmt.Sprintf(`{"agent_id":%q}`, agent)); rec.Code != http.StatusOK {
		f.Fatalf("claim: %d %s", rec.Code, rec.Body)
	}
	id := quote(agent)
	at := quote(time.Now().Add(time.Minute).UTC().Format(time.RFC3339))
	seeds := []string{
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"the fix","zh":"修复","at":` + at + `}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":null}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"the fix","zh":"修复"}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"the fix","zh":"修复","at":"2999-01-01T00:00:00Z"}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"the fix","zh":"修复","at":"soon"}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":` + quote(strings.Repeat("é", 301)) + `,"zh":"修复","at":` + at + `}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"a\u0000b","zh":"修复","at":` + at + `}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":{"en":"x","zh":"x","at":` + at + `,"x":1}}`,
		`{"agent_id":` + id + `,"sales":[1],"next":"the fix"}`,
		`{"agent_id":"someone-else","sales":[1],"next":{"en":"x","zh":"x","at":` + at + `}}`,
		`{"agent_id":` + id + `,"next":{"en":"x","zh":"x","at":` + at + `}}`,
	}
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: fmt.Sprintf("/api/lesson-runs/%d/sales", run.ID),
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT status, sales, next, agent_id FROM lesson_runs WHERE id = ?", run.ID)
		},
	}, seeds...)
}

// FuzzPostMatrix: a verdict-matrix report; a refusal keeps no run.
func FuzzPostMatrix(f *testing.F) {
	e := fuzzEnv(f)
	good := smallReport()
	b, _ := json.Marshal(good)
	body := string(b)
	seeds := []string{body,
		strings.Replace(body, `"kind":"broken"`, `"kind":"fine"`, 1),
		strings.Replace(body, `"kind":"broken"`, `"kind":"broken","kind":"holds"`, 1),
		strings.Replace(body, `"row":"`, `"row":"x`, 1),
		strings.Replace(body, `"figures":{`, `"figures":{"sold":-1e400,`, 1),
		strings.Replace(body, `"started_at":"2025`, `"started_at":"0000`, 1),
		strings.Replace(body, `"machine":"`, `"machine":"`+strings.Repeat("<", 200), 1),
		strings.Replace(body, `"commit":"`, `"commit":"`+strings.Repeat("\xff", 64), 1),
		strings.Replace(body, `"cells":[`, `"cells":[null,`, 1),
		strings.Replace(body, `"cells":[`, `"cells":[[],`, 1),
		`{"faults":[],"rows":[],"cells":[]}`, `{"cells":{}}`, `{"id":-1}`, `{"rows":[{"name":null}]}`,
	}
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: "/api/matrix",
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM matrix_runs")
		},
		after: func(t *testing.T, status int) {
			if status < 300 {
				e.db.Exec("DELETE FROM matrix_runs")
			}
		},
	}, seeds...)
}

// selfHarm are the fault kinds the fuzzer must not run: they would stop or
// kill the test process itself (kill_consumer at its next queued batch),
// hold a sale row for seconds, or crash the Sentinels' master every test
// shares (this env's injector has no Sentinels, and answers them 503
// sentinel_failed). Any string token naming one skips the input.
var selfHarm = []string{string(faultkind.StopProcess), string(faultkind.KillProcess), string(faultkind.KillConsumer), string(faultkind.SlowDB),
	string(faultkind.HoldReplication), string(faultkind.KillRedisMaster)}

func harmsSelf(body string) bool {
	dec := json.NewDecoder(strings.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok {
			for _, k := range selfHarm {
				if s == k {
					return true
				}
			}
		}
	}
}

// FuzzInjectFault runs over every backend, so that the ZooKeeper kinds
// find the session they act on.
func FuzzInjectFault(f *testing.F) {
	f.Setenv(config.EnvFaults, "on")
	e := fuzzEnv(f, withQueue)
	seeds := []string{
		`{"kind":"pause_holder","ms":1}`, `{"kind":"pause_holder","ms":0}`, `{"kind":"pause_holder","ms":30001}`,
		`{"kind":"pause_holder","ms":-9223372036854775808}`, `{"kind":"pause_holder","ms":1,"sale_id":1}`,
		`{"kind":"pause_holder"}`, `{"kind":"nope"}`, `{"kind":5}`, `{"ms":1}`,
		`{"kind":"drop_reply","sale_id":0}`, `{"kind":"drop_reply","sale_id":18446744073709551615}`,
		`{"kind":"drop_reply","sale_id":18446744073709551616}`, `{"kind":"drop_reply","sale_id":-1}`,
		`{"kind":"restart_redis","node":"nope"}`, `{"kind":"restart_redis"}`, `{"kind":"restart_redis","node":` + quote(strings.Repeat("n", 5000)) + `}`,
		`{"kind":"kill_consumer","point":"before_commit"}`, `{"kind":"kill_consumer","point":"later"}`,
		`{"kind":"expire_zk_session"}`, `{"kind":"crash_after_setnx","ms":1}`, `{"kind":"cut_db","ms":1}`,
		`{"kind":"clock_skew","ms":30000}`, `{"kind":"slow_work","ms":1}`, `{"kind":"nested_lock","ms":1}`,
		`{"kind":"getset_release_gap","ms":1}`, `{"kind":"hold_replication","ms":1}`, `{"kind":"kill_redis_master","ms":1}`,
		`{"kind":"kill_zk_server","ms":1}`,
		`{"kind":"pause_holder","ms":1,"replica":""}`, `{"kind":"pause_holder","ms":1,"replica":"elsewhere"}`,
		`{"kind":"pause_holder","ms":1,"replica":` + quote(strings.Repeat("r", 5000)) + `}`,
		`{"kind":"kill_process","ms":1}`, // skipped: it would kill the test
	}
	for _, s := range append(seeds, fuzzGarbage...) {
		f.Add(s)
	}
	serialize := crossProcessLock(f, e)
	f.Fuzz(func(t *testing.T, body string) {
		if harmsSelf(body) {
			t.Skip("a fault on the test process itself")
		}
		defer serialize(t)()
		before := e.get("/api/faults").Body.String()
		rec := e.post("/api/faults", body)
		checkFuzzResponse(t, rec.Code, rec.Body.Bytes(), body)
		if after := e.get("/api/faults").Body.String(); rec.Code >= 400 && after != before {
			t.Fatalf("%d %s for %q, yet the faults changed:\nbefore %s\nafter  %s", rec.Code, rec.Body, clip.Input(body), before, after)
		}
	})
}

func FuzzRestock(f *testing.F) {
	e := fuzzEnv(f)
	v := e.createSale(f, `{"strategy":"db-pessimistic","stock":10}`)
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: fmt.Sprintf("/api/sales/%d/restock", v.ID),
		state: func(t *testing.T) string {
			return e.rows(t, "SELECT stock, initial_stock, updated_at FROM sales WHERE id = ?", v.ID)
		},
	},
		`{"units":1}`, `{"units":1000000}`, `{"units":1000001}`, `{"units":0}`, `{"units":-1}`, `{"units":1.5}`,
		`{"units":1e6}`, `{"units":"5"}`, `{"units":null}`, `{"units":9223372036854775807}`,
		`{"units":18446744073709551616}`, `{"units":1,"units":2}`, `{"Units":1}`, `{"units":1,"sale_id":2}`,
	)
}

func FuzzReconcile(f *testing.F) {
	e := fuzzEnv(f, withQueue)
	v := e.createSale(f, `{"strategy":"redis-lua-stock","stock":10}`)
	fuzzEndpoint(f, e, endpoint{method: http.MethodPost, path: fmt.Sprintf("/api/sales/%d/reconcile", v.ID),
		state: func(t *testing.T) string {
			sl, err := e.store.GetSale(context.Background(), v.ID)
			if err != nil {
				t.Fatal(err)
			}
			store := "none"
			if n := e.srv.storeStock(context.Background(), sl); n != nil {
				store = fmt.Sprint(*n)
			}
			return e.rows(t, "SELECT stock, drift, reconciled_at FROM sales WHERE id = ?", v.ID) + "store " + store
		},
	},
		`{"repair":true}`, `{"repair":false}`, `{}`, `{"repair":"true"}`, `{"repair":1}`, `{"repair":null}`,
		`{"repair":true,"repair":false}`, `{"Repair":true}`, `{"repair":true,"drift":5}`,
	)
}

// FuzzPayOrder fuzzes the order's reference (in the path) and the body
// of a payment, over a reservation nobody has paid yet.
func FuzzPayOrder(f *testing.F) {
	e := fuzzEnv(f)
	v := e.createSale(f, `{"strategy":"db-pessimistic","stock":1000,"per_user_limit":0,"pay_within_ms":600000}`)
	rec := e.post(ordersPath(v.ID), `{"user_id":"payer"}`)
	if rec.Code != http.StatusCreated {
		f.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	var o struct {
		ID    uint64 `json:"id"`
		Token string `json:"order_token"`
	}
	mustJSON(f, rec, &o)
	ref, token := fmt.Sprint(o.ID), quote(o.Token)
	for _, s := range [][2]string{
		{ref, `{"user_id":"payer"}`}, {ref, `{"order_token":""}`}, {ref, `{"order_token":"x"}`},
		{ref, `{"order_token":` + quote(strings.Repeat("t", 70000)) + `}`}, {ref, `{"order_token":5}`},
		{ref, `{"order_token":` + token + `,"user_id":"someone"}`}, {ref, `{"order_token":` + token + `,"user_id":""}`},
		{ref, `{"order_token":` + token + `,"user_id":` + quote(strings.Repeat("p", 65)) + `}`},
		{ref, `{"order_token":` + token + `,"user_id":["payer"]}`}, {ref, `{"order_token":` + token + `,"extra":1}`},
		{ref, `{"order_token":` + token + `}`}, {ref, `{"order_token":` + token + `,"user_id":"payer"}`}, // paid, then paid again
		{"0", `{"order_token":` + token + `}`}, {"-1", `{"order_token":` + token + `}`},
		{"18446744073709551616", `{"order_token":` + token + `}`}, {"99999999999999999999999", `{"order_token":` + token + `}`},
		{"ot_1_" + strings.Repeat("0", 32), `{}`}, {"ot_", `{}`}, {"not-a-ticket", `{}`}, {"", `{}`},
		{"../../sales", `{}`}, {"1 2", `{}`}, {"\x00", `{}`}, {"🛒", `{}`}, {ref, ""}, {ref, "{"},
	} {
		f.Add(s[0], s[1])
	}
	serialize := crossProcessLock(f, e)
	state := func(t *testing.T) string {
		return e.rows(t, "SELECT id, status, paid_at, expired_at FROM orders WHERE sale_id = ? ORDER BY id", v.ID)
	}
	f.Fuzz(func(t *testing.T, ref, body string) {
		defer serialize(t)()
		before := state(t)
		req, err := http.NewRequest(http.MethodPost, "/api/orders/"+url.PathEscape(ref)+"/pay", io.NopCloser(strings.NewReader(body)))
		if err != nil {
			t.Skip("not a request path")
		}
		r := newRecorder()
		e.srv.ServeHTTP(r, req)
		checkFuzzResponse(t, r.Code, r.Body.Bytes(), ref+" "+body)
		if after := state(t); r.Code >= 400 && after != before {
			t.Fatalf("%d %s for %q %q, yet it wrote:\nbefore %s\nafter  %s", r.Code, r.Body, clip.Input(ref), clip.Input(body), before, after)
		}
	})
}
