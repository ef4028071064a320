package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lessons"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// faultyShops is the environment of the scenario shops: faults on, a lock
// wait short enough for the "B times out" halves, and Redis servers of the
// test's own (restart_redis must not touch the shared ones other packages'
// tests are using at the same time; started from a config file, so that
// the durability lesson can switch the default one's persistence). An option of startShop, not t.Setenv,
// so that TestScenarios can run in parallel with TestChaos.
func faultyShops(t *testing.T, db string) shopOpt {
	t.Helper()
	addrs := testenv.PrivateRedis(t, 4)
	env := withEnv(config.EnvFaults+"=on", config.EnvRedisAddr+"="+addrs[0],
		config.EnvRedlockAddrs+"="+strings.Join(addrs[1:], ","), "SECKILL_LOCK_WAIT=7s")
	return func(o *shopOpts) { env(o); withDB(db)(o) }
}

// TestScenarios runs `loadtest scenario all` against two real shop replicas
// with faults on: every scenario must PASS, which asserts both directions
// (the unsafe setup broke the invariant, the fix held it) from the database.
// The last one (zk-dead-holder) kills the first replica.
func TestScenarios(t *testing.T) {
	t.Parallel()
	env := faultyShops(t, "loadtest_scenarios") // their own Redis: their own database
	a, b := startShop(t, env, allowKill), startShop(t, env)
	code, stdout, stderr := runScenario(t, "--targets", a+","+b, "--admin-token", testToken, "all")
	t.Logf("\n%s", stdout)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, s := range scenarios {
		if !strings.Contains(stdout, s.Name) {
			t.Errorf("scenario %s missing from the output", s.Name)
		}
	}
	if n := strings.Count(stdout, "PASS"); n != 2*len(scenarios) { // per-scenario line + table row
		t.Errorf("%d PASS in the output, want %d", n, 2*len(scenarios))
	}

	// One replica: a two-replica scenario is skipped, not failed.
	code, stdout, _ = runScenario(t, "--targets", b, "--admin-token", testToken, "mutex-across-replicas")
	if code != exitOK || !strings.Contains(stdout, "SKIP") {
		t.Errorf("one target: exit %d, output:\n%s", code, stdout)
	}
}

// A lesson queued through the API (as the dashboard does) is run by a real
// `loadtest agent` and its verdict lands in the database.
func TestLessonThroughAgent(t *testing.T) {
	env := faultyShops(t, "loadtest_lesson")
	t.Setenv(config.EnvAdminToken, testToken) // the agent's token for sales and faults
	shop := startShop(t, env)
	db := testenv.DB(t, "loadtest_lesson")
	if err := db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'").Error; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var agentOut bytes.Buffer
	wg.Add(1)
	go func() {
		defer wg.Done()
		var errb bytes.Buffer
		dispatch(ctx, []string{"agent", "--shop", shop, "--id", "t-lesson-agent"}, &agentOut, &errb)
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })

	c := newClient(4, 10*time.Second, testToken)
	defer c.close()
	var run lessons.Run
	deadline := time.Now().Add(10 * time.Second)
	for { // the agent needs a heartbeat or two to be listed
		_, err := c.callJSON(ctx, http.MethodPost, shop+"/api/lessons/optimistic-vs-pessimistic/runs", nil, http.StatusAccepted, &run)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "no_agents") || time.Now().After(deadline) {
			t.Fatalf("queue the lesson: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	deadline = time.Now().Add(90 * time.Second)
	for run.Status != lessons.StatusDone {
		if time.Now().After(deadline) {
			t.Fatalf("lesson run %d not done within 90 s: %+v\nagent:\n%s", run.ID, run, agentOut.String())
		}
		time.Sleep(300 * time.Millisecond)
		if _, err := c.callJSON(ctx, http.MethodGet, fmt.Sprintf("%s/api/lesson-runs/%d", shop, run.ID), nil, http.StatusOK, &run); err != nil {
			t.Fatal(err)
		}
	}
	if run.Verdict != lessons.VerdictPass || !strings.Contains(run.Output, "seed predicts") || !strings.Contains(run.Observed, "db-pessimistic") {
		raw, _ := json.MarshalIndent(run, "", "  ")
		t.Fatalf("lesson run: %s", raw)
	}
}

// Every lesson of the catalogue has a scenario and every scenario a lesson:
// the dashboard lists the catalogue, the agents run the scenarios.
func TestCatalogueHasRunners(t *testing.T) {
	if len(scenarios) != len(lessons.Catalogue) || len(runners) != len(lessons.Catalogue) {
		t.Fatalf("%d lessons, %d scenarios, %d runners", len(lessons.Catalogue), len(scenarios), len(runners))
	}
}

func TestScenarioUsage(t *testing.T) {
	if code, _, _ := runScenario(t, "nope"); code != exitUsage {
		t.Errorf("unknown scenario: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := runScenario(t); code != exitUsage {
		t.Errorf("no scenario: exit %d, want %d", code, exitUsage)
	}
	code, stdout, _ := runScenario(t, "list")
	if code != exitOK || !strings.Contains(stdout, "pause-past-ttl") {
		t.Errorf("list: exit %d, output %q", code, stdout)
	}
}

// runScenario runs `loadtest scenario args...` through the dispatcher.
func runScenario(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), append([]string{"scenario"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
