package e2e

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestRunsAcrossReplicasAndAgents is issue 4's end-to-end check: 3 `shop
// serve` replicas and 2 `loadtest agent` processes, one small run per
// strategy through POST /api/runs, for every registered strategy. An
// in-process mutex (and no lock at all) oversells across 3 processes; the
// strategies meant to be safe never do. The teaching variants are only
// logged: without a fault they happen to hold.
func TestRunsAcrossReplicasAndAgents(t *testing.T) {
	shops := startShops(t, 3, "e2e_runs")
	startAgents(t, 2, shops, "e2e_runs")
	const stock = 20
	strategies := lockstrategy.Names()
	ids := map[string]uint64{}
	for i, name := range strategies {
		// Created on different replicas: any replica serves the runs API.
		v := createRun(t, shops[i%len(shops)].URL, map[string]any{
			"strategy": name, "stock": stock, "buyers": 200, "concurrency": 16, "work_ms": 3, "ttl_ms": 5000,
		})
		if len(v.Targets) != 3 || len(v.Steps) != 1 {
			t.Fatalf("run %d: targets %v, %d steps; want all 3 replicas and 1 step", v.ID, v.Targets, len(v.Steps))
		}
		ids[name] = v.ID
	}
	for _, name := range strategies {
		v := waitRun(t, shops[2].URL, ids[name], 60*time.Second)
		st := v.Steps[0]
		s, c := st.Sale, st.Client
		t.Logf("%-15s sold %3d/%d oversold %3d lost %3d violations %3d | client: %d requests, %d orders, %d sold out, errors %v, p50 %.1fms p99 %.1fms, shares %d",
			name, s.Sold, stock, s.Oversold, s.LostUpdates, s.Violations, c.Requests, c.Orders, c.SoldOut, c.Errors,
			c.LatencyMS.P50, c.LatencyMS.P99, len(st.Agents))
		if c.Requests != 200 {
			t.Errorf("%s: agents report %d requests, want all 200 buyers", name, c.Requests)
		}
		if len(st.Agents) != 2 || st.Agents[0].AgentID == st.Agents[1].AgentID || st.Agents[0].Requests == 0 || st.Agents[1].Requests == 0 {
			t.Errorf("%s: the step was not split between the 2 agents: %+v", name, st.Agents)
		}
		if c.LatencyMS.P50 <= 0 || c.LatencyMS.P99 < c.LatencyMS.P50 {
			t.Errorf("%s: merged client latency p50 %v p99 %v", name, c.LatencyMS.P50, c.LatencyMS.P99)
		}
		if c.Orders != s.Sold {
			t.Errorf("%s: agents saw %d orders, the database has %d", name, c.Orders, s.Sold)
		}
		strategy, _ := lockstrategy.Lookup(name)
		switch {
		case name == "none" || name == "mutex":
			if s.Oversold == 0 {
				t.Errorf("%s did not oversell across 3 replicas: the lesson did not show", name)
			}
		case strategy.Safe:
			checkSafe(t, v, stock)
		}
	}
}

// TestRunSurvivesKilledReplica SIGKILLs one of 3 replicas mid-run: the run
// still finishes, the replica drops out of the live view within discovery's
// expiry, and the safe strategy's invariants hold.
func TestRunSurvivesKilledReplica(t *testing.T) {
	shops := startShops(t, 3, "e2e_runs_kill")
	startAgents(t, 2, shops, "e2e_runs_kill")
	// The open model at 300 requests/s spreads 1500 buyers over ~5 s, so
	// the kill lands while the stock is still selling.
	const stock = 400
	v := createRun(t, shops[0].URL, map[string]any{
		"strategy": "db-pessimistic", "stock": stock, "buyers": 1500, "rate": 300, "work_ms": 2, "ttl_ms": 5000,
	})
	var before runView
	testenv.WaitFor(t, 20*time.Second, "load under way", func() bool {
		before = getRun(t, shops[0].URL, v.ID)
		return before.Steps[0].Client.Requests >= 100
	})
	victim := shops[2]
	victim.kill(t)
	killed := time.Now()
	if s := before.Steps[0].Sale; s.Sold >= stock {
		t.Fatalf("the stock sold out before the kill (%d sold): the test proves nothing; slow the load down", s.Sold)
	}

	final := waitRun(t, shops[0].URL, v.ID, 60*time.Second)
	st := final.Steps[0]
	t.Logf("after killing %s: sold %d/%d oversold %d lost %d violations %d | client: %d requests, %d orders, errors %v",
		victim.URL, st.Sale.Sold, stock, st.Sale.Oversold, st.Sale.LostUpdates, st.Sale.Violations,
		st.Client.Requests, st.Client.Orders, st.Client.Errors)
	checkSafe(t, final, stock)
	if st.Client.Requests != 1500 || st.Client.Errors["transport"] == 0 {
		t.Errorf("want all 1500 buyers sent and some transport errors from the dead replica: %d, %v",
			st.Client.Requests, st.Client.Errors)
	}
	for _, a := range st.Agents {
		if !a.Done {
			t.Errorf("share of %s not done: the agents did not survive the replica's death", a.AgentID)
		}
	}

	testenv.WaitFor(t, 10*time.Second, "killed replica out of the live view", func() bool {
		for _, m := range alive(t, shops[1].URL, "shop") {
			if m.URL == victim.URL {
				return false
			}
		}
		return true
	})
	t.Logf("killed replica dropped out of GET /api/replicas %v after the kill", time.Since(killed).Round(time.Millisecond))
	if n := len(alive(t, shops[1].URL, "shop")); n != 2 {
		t.Errorf("%d shops alive after killing one of 3, want 2", n)
	}
}
