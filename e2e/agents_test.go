package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// loadtestBinary is the loadtest command, built once per test binary.
func loadtestBinary(t *testing.T) string {
	return testenv.Binary(t, "github.com/seckill-lab/seckill/loadtest")
}

// startShops starts n shops (replica ids db-r1..db-rn) a test may kill.
func startShops(t *testing.T, n int, db string) []*testenv.Shop {
	t.Helper()
	// Runs left open by an interrupted earlier test would take shares of
	// this test's agents.
	if err := testenv.DB(t, db).Exec("UPDATE runs SET status = 'failed' WHERE status IN ('queued', 'running')").Error; err != nil {
		t.Fatal(err)
	}
	var out []*testenv.Shop
	for i := range n {
		out = append(out, startShop(t, db, fmt.Sprintf("r%d", i+1)))
	}
	return out
}

// startShop starts one `shop serve` a test may kill, over database db,
// replica id db + "-" + name.
func startShop(t *testing.T, db, name string) *testenv.Shop {
	t.Helper()
	return testenv.StartShop(t, testenv.ShopOptions{DB: db, ReplicaID: db + "-" + name})
}

// startAgents starts n `loadtest agent` processes that know every shop.
func startAgents(t *testing.T, n int, shops []*testenv.Shop, db string) {
	t.Helper()
	bin := loadtestBinary(t)
	list := ""
	for i, s := range shops {
		if i > 0 {
			list += ","
		}
		list += s.URL
	}
	for i := range n {
		id := fmt.Sprintf("%s-agent-%d", db, i+1)
		cmd := exec.Command(bin, "agent", "--shop", list, "--id", id)
		logf, _ := os.Create(filepath.Join(t.TempDir(), id+".log"))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			defer logf.Close()
			stopProc(t, cmd, id, logf.Name())
		})
	}
	// Wait until discovery lists every agent: a run takes the agents alive
	// when it is created.
	testenv.WaitFor(t, 15*time.Second, "agents registered", func() bool {
		return len(alive(t, shops[0].URL, "agent")) == n
	})
}

// stopProc SIGINTs cmd and expects a clean exit within 20 s.
func stopProc(t *testing.T, cmd *exec.Cmd, name, logName string) {
	_ = cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s did not exit cleanly on SIGINT: %v (log %s)", name, err, logName)
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Errorf("%s did not stop within 20s of SIGINT", name)
	}
}

// member is the part of GET /api/replicas read here.
type member struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	URL   string `json:"url"`
	Alive bool   `json:"alive"`
}

// alive lists the live members of kind.
func alive(t *testing.T, base, kind string) []member {
	t.Helper()
	var list []member
	if code, err := call(context.Background(), "GET", base+"/api/replicas", nil, &list); err != nil || code != 200 {
		t.Fatalf("GET /api/replicas: %d %v", code, err)
	}
	var out []member
	for _, m := range list {
		if m.Kind == kind && m.Alive {
			out = append(out, m)
		}
	}
	return out
}

// runView is the part of GET /api/runs/{id} read here.
type runView struct {
	ID      uint64   `json:"id"`
	Status  string   `json:"status"`
	Error   string   `json:"error"`
	Targets []string `json:"targets"`
	Steps   []struct {
		Strategy string     `json:"strategy"`
		Status   string     `json:"status"`
		Deadline *time.Time `json:"deadline"`
		Sale     *struct {
			sale
			Violations int64 `json:"violations"`
		} `json:"sale"`
		Client struct {
			Requests  int64            `json:"requests"`
			Orders    int64            `json:"orders"`
			SoldOut   int64            `json:"sold_out"`
			Errors    map[string]int64 `json:"errors"`
			LatencyMS struct {
				P50 float64 `json:"p50"`
				P99 float64 `json:"p99"`
			} `json:"latency_ms"`
		} `json:"client"`
		Agents []struct {
			AgentID  string `json:"agent_id"`
			Requests int64  `json:"requests"`
			Done     bool   `json:"done"`
		} `json:"agents"`
	} `json:"steps"`
}

func createRun(t *testing.T, base string, body map[string]any) runView {
	t.Helper()
	var v runView
	if code, err := call(context.Background(), "POST", base+"/api/runs", body, &v); err != nil || code != http.StatusCreated {
		t.Fatalf("POST /api/runs %v: %d %v", body, code, err)
	}
	return v
}

func getRun(t *testing.T, base string, id uint64) runView {
	t.Helper()
	var v runView
	if code, err := call(context.Background(), "GET", fmt.Sprintf("%s/api/runs/%d", base, id), nil, &v); err != nil || code != 200 {
		t.Fatalf("GET run %d: %d %v", id, code, err)
	}
	return v
}

// waitRun waits for run id to end and wants it done. There is no fixed
// budget: the shop ends a step at its deadline, which moves on only while
// the agents report progress, so the wait lasts as long as the run makes
// progress, plus slack for the shop to notice the deadline.
func waitRun(t *testing.T, base string, id uint64) runView {
	t.Helper()
	const slack = 30 * time.Second
	for {
		v := getRun(t, base, id)
		switch v.Status {
		case "done":
			return v
		case "failed":
			t.Fatalf("run %d failed: %s", id, v.Error)
		}
		var latest time.Time
		for _, st := range v.Steps {
			if st.Deadline != nil && st.Deadline.After(latest) {
				latest = *st.Deadline
			}
		}
		if !latest.IsZero() && time.Now().After(latest.Add(slack)) {
			t.Fatalf("run %d still %s %v after its step deadline %v", id, v.Status, slack, latest)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// safe: the database invariants of a strategy meant to be safe.
func checkSafe(t *testing.T, v runView, stock int64) {
	t.Helper()
	for _, st := range v.Steps {
		s := st.Sale
		if s == nil {
			t.Fatalf("%s: no sale", st.Strategy)
		}
		// Each buyer sends one order: a buyer whose order failed (a lock
		// or persist timeout on a loaded machine) leaves its unit unsold,
		// so the stock sells out unless answers failed, and then at least
		// up to them. The stock of record always accounts for every sale.
		var failed int64
		for _, n := range st.Client.Errors {
			failed += n
		}
		if s.Oversold != 0 || s.LostUpdates != 0 || s.Violations != 0 || s.Sold > stock || s.Sold+failed < stock ||
			s.Stock != stock-s.Sold {
			t.Fatalf("%s broke the sale: sold %d of %d (%d answers failed), stock left %d, oversold %d, lost updates %d, violations %d",
				st.Strategy, s.Sold, stock, failed, s.Stock, s.Oversold, s.LostUpdates, s.Violations)
		}
		if s.Sold < stock {
			t.Logf("%s: %d of %d units unsold after %d failed answers %v", st.Strategy, stock-s.Sold, stock, failed, st.Client.Errors)
		}
	}
}
