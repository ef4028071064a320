package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestRunsAcrossReplicasAndAgents is the runs API end to end: 3 `shop
// serve` replicas and 2 `loadtest agent` processes, one small run per
// strategy through POST /api/runs, for every safe strategy and the two
// whose overselling it asserts. An in-process mutex (and no lock at all)
// oversells across 3 processes; the strategies meant to be safe never do.
func TestRunsAcrossReplicasAndAgents(t *testing.T) {
	t.Parallel() // own database and ports: the e2e tests mostly wait, so overlap them
	// The runs path (the runs API on any replica, shares claimed by two
	// agents, the sale checked from the database) is the same for every
	// strategy: it runs for none and mutex, whose overselling across
	// replicas is asserted here, and for one safe strategy per kind and set
	// of backends (the first by name), so that every road and backend is
	// driven through it. Each safe strategy's exclusion across processes is
	// TestProcessTwoReplicas's and the conformance suite's; this keeps make
	// test within its 10 minutes on 2 cores as strategies are added.
	names := []string{"none", "mutex"}
	seen := map[string]bool{}
	for _, s := range lockstrategy.All() {
		family := fmt.Sprint(s.Kind(), s.Needs)
		if s.Safe && !seen[family] {
			seen[family] = true
			names = append(names, s.Name)
		}
	}
	t.Logf("strategies driven: %v", names)
	runStrategiesAcrossReplicas(t, "e2e_runs", names)
}

// runStrategiesAcrossReplicas runs each strategy of names, one run at a
// time, on a cluster of its own, and checks every run from the database.
func runStrategiesAcrossReplicas(t *testing.T, db string, names []string) {
	shops := startShops(t, 3, db)
	startAgents(t, 2, shops, db)
	const stock = 20
	for i, name := range names {
		// Created on different replicas: any replica serves the runs API.
		// One run at a time: a run's step deadline starts when it is
		// created, and the agents take runs in turn, so runs queued behind
		// slow ones could pass their deadline on a slow machine.
		v := createRun(t, shops[i%len(shops)].URL, map[string]any{
			"strategy": name, "stock": stock, "buyers": 200, "concurrency": 16, "work_ms": 3, "ttl_ms": 5000,
		})
		if len(v.Targets) != 3 || len(v.Steps) != 1 {
			t.Fatalf("run %d: targets %v, %d steps; want all 3 replicas and 1 step", v.ID, v.Targets, len(v.Steps))
		}
		v = waitRun(t, shops[2].URL, v.ID)
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
		// A buyer that gave up (timeout) or lost its connection does not
		// know its answer: the order may have committed all the same. Every
		// order seen is in the database, and the database has no more than
		// those plus the unknown outcomes.
		if unknown := c.Errors["timeout"] + c.Errors["transport"]; c.Orders > s.Sold || s.Sold > c.Orders+unknown {
			t.Errorf("%s: agents saw %d orders and %d unknown outcomes, the database has %d", name, c.Orders, unknown, s.Sold)
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
	t.Parallel() // own database and ports: the e2e tests mostly wait, so overlap them
	shops := startShops(t, 3, "e2e_runs_kill")
	startAgents(t, 2, shops, "e2e_runs_kill")
	// A safe lock serialises the sections and each takes work_ms, so the
	// stock cannot sell faster than 1000/work_ms = 50 a second, however
	// fast the machine: at least 3 s for the 150. The closed model (a few
	// buyers at a time) cannot overload a slow machine into timeouts, as a
	// fixed request rate did. The step's deadline moves on while the agents
	// make progress, so a slow machine only makes the run longer. Twice the
	// stock in buyers leaves room for the requests lost to the dead replica.
	const stock, buyers, workMS = 150, 300, 20
	v := createRun(t, shops[0].URL, map[string]any{
		"strategy": "db-pessimistic", "stock": stock, "buyers": buyers, "concurrency": 8, "work_ms": workMS, "ttl_ms": 5000,
	})
	// The kill is triggered by orders in the database, not by the agents'
	// counts (reported once a second, so up to a second late).
	db := testenv.DB(t, "e2e_runs_kill")
	var saleID uint64
	testenv.WaitFor(t, 60*time.Second, "the run's first step to create its sale", func() bool {
		if s := getRun(t, shops[0].URL, v.ID).Steps[0].Sale; s != nil {
			saleID = s.ID
		}
		return saleID != 0
	})
	sold := func() int64 {
		var n int64
		if err := db.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ?", saleID).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n
	}
	testenv.WaitFor(t, 60*time.Second, "10 orders of the run in the database", func() bool { return sold() >= 10 })
	victim := shops[2]
	victim.Kill(t)
	killed := time.Now()
	if n := sold(); n >= stock {
		t.Fatalf("%d of %d units were sold when the kill had landed: at %d ms a section that takes at least %v, so this "+
			"test process stalled; the kill did not land mid-sale", n, stock, workMS, time.Duration(stock-10)*workMS*time.Millisecond)
	}

	final := waitRun(t, shops[0].URL, v.ID) // every buyer takes the lock: slow on a loaded machine
	st := final.Steps[0]
	t.Logf("after killing %s: sold %d/%d oversold %d lost %d violations %d | client: %d requests, %d orders, errors %v",
		victim.URL, st.Sale.Sold, stock, st.Sale.Oversold, st.Sale.LostUpdates, st.Sale.Violations,
		st.Client.Requests, st.Client.Orders, st.Client.Errors)
	checkSafe(t, final, stock)
	if st.Client.Requests != buyers || st.Client.Errors["transport"] == 0 {
		t.Errorf("want all %d buyers sent and some transport errors from the dead replica: %d, %v",
			buyers, st.Client.Requests, st.Client.Errors)
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
