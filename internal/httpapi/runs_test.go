package httpapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/runwire"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// runsEnv is an API over its own database (seckill_test_httpapi_runs):
// runs need agents in discovery, which must not show up in TestReplicas.
func runsEnv(t *testing.T, opts ...func(*envConfig)) *env {
	t.Helper()
	db := testenv.DB(t, "httpapi_runs")
	// Runs left open by an interrupted earlier test would take the claims.
	if err := db.Exec("UPDATE runs SET status = 'failed' WHERE status IN ('queued', 'running')").Error; err != nil {
		t.Fatal(err)
	}
	return newEnv(t, append(opts, func(c *envConfig) { c.db = db })...)
}

// register adds a live discovery member, removed at cleanup.
func register(t testing.TB, e *env, m discovery.Member) {
	t.Helper()
	if err := discovery.Register(context.Background(), e.db, m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { discovery.Remove(context.Background(), e.db, m) })
}

func TestCreateRunRejects(t *testing.T) {
	e := runsEnv(t)
	for _, c := range []struct{ body, code, field string }{
		{`{"stock":5,"buyers":10}`, "invalid_field", "strategy"},
		{`{"strategy":"nope","stock":5,"buyers":10}`, "invalid_field", "strategy"},
		{`{"strategy":"redis","stock":5,"buyers":10}`, "invalid_field", "strategy"}, // no Redis in this env
		{`{"strategy":"none","stock":0,"buyers":10}`, "invalid_field", "stock"},
		{`{"strategy":"none","stock":5}`, "invalid_field", "buyers"},
		{`{"strategy":"none","stock":5,"buyers":0}`, "invalid_field", "buyers"},
		{`{"strategy":"none","stock":5,"buyers":10,"concurrency":4,"rate":100}`, "invalid_field", "rate"},
		{`{"strategy":"none","stock":5,"buyers":10,"rate":-1}`, "invalid_field", "rate"},
		{`{"strategy":"none","stock":5,"buyers":10,"concurrency":0}`, "invalid_field", "concurrency"},
		{`{"strategy":"none","stock":5,"buyers":10,"replicas":-1}`, "invalid_field", "replicas"},
		{`{"strategy":"none","stock":5,"buyers":10,"work_ms":-1}`, "invalid_field", "work_ms"},
		{`{"strategy":"none","stock":5,"buyers":10,"name":"x"}`, "unknown_field", "name"},
		{`{"strategy":"none","stock":5,"buyers":"ten"}`, "invalid_field", "buyers"},
		{`{"strategy":"db-pessimistic","stock":5,"buyers":10,"watchdog":false}`, "invalid_field", "watchdog"},
		{`{"strategy":"none","stock":5,"buyers":10,"watchdog":"off"}`, "invalid_field", "watchdog"},
	} {
		wantError(t, e.post("/api/runs", c.body), http.StatusBadRequest, c.code, c.field)
	}
}

func TestCreateRunNoAgentsAndToken(t *testing.T) {
	e := runsEnv(t, withToken("s3cret"))
	body := `{"strategy":"none","stock":5,"buyers":10}`
	wantError(t, e.post("/api/runs", body), http.StatusUnauthorized, "unauthorized", "")
	// No agent alive in this database (other tests remove theirs).
	wantError(t, e.post("/api/runs", body, "Authorization: Bearer s3cret"), http.StatusConflict, "no_agents", "")
}

// The whole agent protocol through the handlers: heartbeat, run, claim,
// report, merged view.
func TestRunThroughAPI(t *testing.T) {
	e := runsEnv(t)
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agent := "t-agent-" + tag
	register(t, e, discovery.Member{ID: "t-shop-" + tag, Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1})
	if rec := e.post("/api/agents/heartbeat", fmt.Sprintf(`{"agent_id":%q,"pid":42}`, agent)); rec.Code != http.StatusNoContent {
		t.Fatalf("heartbeat: %d %s", rec.Code, rec.Body)
	}
	t.Cleanup(func() { e.post("/api/agents/heartbeat", fmt.Sprintf(`{"agent_id":%q,"pid":42,"gone":true}`, agent)) })
	wantError(t, e.post("/api/agents/heartbeat", `{"pid":1}`), http.StatusBadRequest, "invalid_field", "agent_id")

	rec := e.post("/api/runs", `{"strategy":"db-pessimistic","stock":3,"buyers":10,"concurrency":2,"replicas":1}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create run: %d %s", rec.Code, rec.Body)
	}
	var v runs.RunView
	mustJSON(t, rec, &v)
	if v.Status != runs.StatusRunning || len(v.Targets) != 1 || len(v.Steps) != 1 || v.Steps[0].Sale == nil ||
		v.Steps[0].Sale.Strategy != "db-pessimistic" || v.Steps[0].Sale.InitialStock != 3 ||
		!v.Config.Watchdog || !v.Steps[0].Sale.Watchdog {
		t.Fatalf("created run: %+v", v)
	}

	var a runwire.Assignment
	for a.RunID != v.ID { // skip shares of leftover runs of an earlier, interrupted test run
		rec = e.post("/api/agents/claim", fmt.Sprintf(`{"agent_id":%q}`, agent))
		if rec.Code != http.StatusOK {
			t.Fatalf("claim: %d %s", rec.Code, rec.Body)
		}
		mustJSON(t, rec, &a)
	}
	if a.Buyers != 10 || a.SaleID != v.Steps[0].SaleID || a.Concurrency != 2 || a.UserPrefix == "" {
		t.Fatalf("assignment: %+v", a)
	}
	if rec = e.post("/api/agents/claim", fmt.Sprintf(`{"agent_id":%q}`, agent)); rec.Code != http.StatusNoContent {
		t.Fatalf("second claim: %d %s, want 204", rec.Code, rec.Body)
	}

	h := hdrhistogram.New(1, 1e9, 3)
	_ = h.RecordValues(2000, 10)
	enc, _ := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	path := fmt.Sprintf("/api/runs/%d/steps/0/shares/%d/report", v.ID, a.Share)
	report := func(agentID string, done bool) string {
		return fmt.Sprintf(`{"agent_id":%q,"requests":10,"orders":3,"sold_out":7,"errors":{},"elapsed_ms":500,"histogram":%q,"done":%t}`,
			agentID, enc, done)
	}
	wantError(t, e.post(path, report("someone-else", false)), http.StatusConflict, "not_yours", "")
	wantError(t, e.post(fmt.Sprintf("/api/runs/%d/steps/0/shares/99/report", v.ID), report(agent, false)), http.StatusNotFound, "not_found", "")
	wantError(t, e.post(path, `{"agent_id":"x","histogram":"AAAA"}`), http.StatusBadRequest, "invalid_report", "")
	wantError(t, e.post(path, `{"agent_id":"x","bogus":1}`), http.StatusBadRequest, "unknown_field", "bogus")
	if rec = e.post(path, report(agent, true)); rec.Code != http.StatusOK {
		t.Fatalf("report: %d %s", rec.Code, rec.Body)
	}

	rec = e.get(fmt.Sprintf("/api/runs/%d", v.ID))
	mustJSON(t, rec, &v)
	st := v.Steps[0]
	if v.Status != runs.StatusDone || st.Client.Requests != 10 || st.Client.Orders != 3 || st.Client.RequestsPerS != 20 ||
		st.Client.LatencyMS.P99 < 1.99 || st.Client.LatencyMS.P99 > 2.01 || st.Server == nil || len(st.Agents) != 1 || st.Agents[0].AgentID != agent {
		t.Fatalf("run view: %+v", v)
	}
	var list []runs.RunView
	mustJSON(t, e.get("/api/runs"), &list)
	if len(list) == 0 || list[0].ID < v.ID {
		t.Fatalf("GET /api/runs not newest first: %+v", list)
	}
	wantError(t, e.get("/api/runs/abc"), http.StatusBadRequest, "invalid_id", "id")
	wantError(t, e.get("/api/runs/999999999999"), http.StatusNotFound, "not_found", "")
}

// A run's watchdog switch reaches its steps' sales: off for the strategies
// that renew their lease, and with "all" the others keep theirs instead of
// refusing the run.
func TestRunWatchdog(t *testing.T) {
	e := redisEnv(t)
	all, off := runs.AllStrategies, false
	stock, buyers := int64(5), int64(10)
	cfg, err := runs.Validate(runs.Spec{Sale: sale.Spec{Strategy: &all, Stock: &stock, Watchdog: &off}, Buyers: &buyers}, e.srv.sales)
	if err != nil {
		t.Fatalf("all with watchdog:false: %v", err)
	}
	if cfg.Watchdog {
		t.Fatalf("config %+v: watchdog should be off", cfg)
	}
	for name, want := range map[string]bool{"redis": false, "redlock": false, "db-pessimistic": true, "db-lock-table": true} {
		made, err := e.srv.sales.Create(context.Background(), runs.StepSpec(name, cfg))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := e.store.GetSale(context.Background(), made.ID)
		if err != nil || got.Watchdog != want {
			t.Errorf("%s: step sale watchdog %v (%v), want %v", name, got.Watchdog, err, want)
		}
	}
	named := "redis"
	if cfg, err = runs.Validate(runs.Spec{Sale: sale.Spec{Strategy: &named, Stock: &stock}, Buyers: &buyers}, e.srv.sales); err != nil || !cfg.Watchdog {
		t.Fatalf("redis run without the member: %+v, %v; want watchdog on", cfg, err)
	}
}

// claimedShare starts a run of one db-pessimistic step and claims its
// share as a fresh agent: the report path and the agent's id.
func claimedShare(t testing.TB, e *env) (path, agent string) {
	t.Helper()
	tag := fmt.Sprintf("%08x", rand.Uint32())
	agent = "t-agent-" + tag
	register(t, e, discovery.Member{ID: "t-shop-" + tag, Kind: discovery.KindShop, URL: "http://127.0.0.1:1", PID: 1})
	register(t, e, discovery.Member{ID: agent, Kind: discovery.KindAgent, PID: 42})
	rec := e.post("/api/runs", `{"strategy":"db-pessimistic","stock":3,"buyers":10,"concurrency":2,"replicas":1}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create run: %d %s", rec.Code, rec.Body)
	}
	var v runs.RunView
	mustJSON(t, rec, &v)
	t.Cleanup(func() { e.db.Exec("UPDATE runs SET status = 'failed' WHERE id = ?", v.ID) })
	var a runwire.Assignment
	for a.RunID != v.ID { // skip shares of leftover runs
		rec = e.post("/api/agents/claim", fmt.Sprintf(`{"agent_id":%q}`, agent))
		if rec.Code != http.StatusOK {
			t.Fatalf("claim: %d %s", rec.Code, rec.Body)
		}
		mustJSON(t, rec, &a)
	}
	return fmt.Sprintf("/api/runs/%d/steps/0/shares/%d/report", v.ID, a.Share), agent
}

// A report whose error kinds, stored as JSON in a TEXT column, would not
// fit there (or whose figures cannot be counts) is a 400 invalid_report,
// not a failed write; the share keeps its last figures.
func TestReportErrorKindsBounded(t *testing.T) {
	e := runsEnv(t)
	path, agent := claimedShare(t, e)
	if rec := e.post(path, fmt.Sprintf(`{"agent_id":%q,"requests":1,"errors":{"lock_timeout":1}}`, agent)); rec.Code != http.StatusOK {
		t.Fatalf("report: %d %s", rec.Code, rec.Body)
	}
	kinds := make([]string, 32)
	for i := range kinds {
		// Each '<' is one byte here and six (\u003c) in the stored JSON.
		kinds[i] = fmt.Sprintf(`"%02d%s":1`, i, strings.Repeat("<", 1900))
	}
	for name, errs := range map[string]string{
		"stored JSON past the column": "{" + strings.Join(kinds, ",") + "}",
		"a long kind":                 `{"` + strings.Repeat("k", 65) + `":1}`,
		"an empty kind":               `{"":1}`,
		"a negative count":            `{"lock_timeout":-1}`,
	} {
		t.Run(name, func(t *testing.T) {
			body := fmt.Sprintf(`{"agent_id":%q,"requests":2,"errors":%s}`, agent, errs)
			wantError(t, e.post(path, body), http.StatusBadRequest, "invalid_report", "errors")
		})
	}
	var stored struct {
		Requests int64
		Errors   string
	}
	if err := e.db.Raw("SELECT requests, errors FROM run_shares WHERE agent_id = ?", agent).Scan(&stored).Error; err != nil {
		t.Fatal(err)
	}
	if stored.Requests != 1 || stored.Errors != `{"lock_timeout":1}` {
		t.Fatalf("a refused report changed the share: %+v", stored)
	}
}

// An agent of an async sale's run reports its 202s as "accepted" (counted
// with the orders too): the shop takes the member the agent sends.
func TestReportTakesAccepted(t *testing.T) {
	e := runsEnv(t)
	path, agent := claimedShare(t, e)
	if rec := e.post(path, fmt.Sprintf(`{"agent_id":%q,"requests":4,"orders":3,"accepted":3,"errors":{}}`, agent)); rec.Code != http.StatusOK {
		t.Fatalf("report with accepted: %d %s", rec.Code, rec.Body)
	}
}
