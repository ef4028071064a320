package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/config"
)

// TestScenarios runs `loadtest scenario all` against two real shop replicas
// with faults on: every scenario must PASS, which asserts both directions
// (the unsafe setup broke the invariant, the fix held it) from the database.
func TestScenarios(t *testing.T) {
	t.Setenv(config.EnvFaults, "on") // inherited by the shops startShop starts
	a, b := startShop(t), startShop(t)
	code, stdout, stderr := runScenario(t, "--targets", a+","+b, "--admin-token", testToken, "all")
	t.Logf("\n%s", stdout)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, s := range scenarios {
		if !strings.Contains(stdout, s.name) {
			t.Errorf("scenario %s missing from the output", s.name)
		}
	}
	if n := strings.Count(stdout, "PASS"); n != 2*len(scenarios) { // per-scenario line + table row
		t.Errorf("%d PASS in the output, want %d", n, 2*len(scenarios))
	}

	// One replica: the two-replica scenario is skipped, not failed.
	code, stdout, _ = runScenario(t, "--targets", a, "--admin-token", testToken, "mutex-across-replicas")
	if code != exitOK || !strings.Contains(stdout, "SKIP") {
		t.Errorf("one target: exit %d, output:\n%s", code, stdout)
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
