package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// envRunMain makes the test binary act as the shop binary: the demo test
// starts it as `shop demo`, and the demo re-executes it (os.Executable) as
// `shop serve`, so the processes under test are this build, race detector
// included, with no separate go build.
const envRunMain = "SHOP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envRunMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// replicaEntry is the part of GET /api/replicas the test reads.
type replicaEntry struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	URL   string `json:"url"`
	PID   int    `json:"pid"`
	Alive bool   `json:"alive"`
}

func getReplicas(t *testing.T, base string) map[string]replicaEntry {
	t.Helper()
	resp, err := http.Get(base + "/api/replicas")
	if err != nil {
		t.Fatalf("GET /api/replicas: %v", err)
	}
	defer resp.Body.Close()
	var list []replicaEntry
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/replicas: %d %v", resp.StatusCode, err)
	}
	out := map[string]replicaEntry{}
	for _, r := range list {
		out[r.ID] = r
	}
	return out
}

// freeBasePort returns a port p with p..p+n-1 free on 127.0.0.1.
func freeBasePort(t *testing.T, n int) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		addrs, err := replicaAddrs("127.0.0.1:"+strconv.Itoa(p), n)
		if err == nil && portsFree(addrs) == nil {
			return p
		}
	}
	t.Fatal("no run of free ports")
	return 0
}

func healthy(url string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(url + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// `shop demo` as real processes: two replicas come up and find each other
// through the database; a SIGKILLed one is reported at once, not restarted,
// and drops out of /api/replicas within the 5 s expiry; Ctrl-C stops the
// rest gracefully and the demo exits 0.
func TestDemoProcesses(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "demo")
	db := testenv.DB(t, "demo")
	d := startDemo(t, dsn, freeBasePort(t, 2))
	testenv.WaitFor(t, 60*time.Second, "both replicas report up", func() bool {
		out := d.stdout.String()
		return strings.Contains(out, d.url1+" ") && strings.Contains(out, d.url2+" ") && strings.Count(out, " up\n") == 2
	})
	if !healthy(d.url1) || !healthy(d.url2) {
		t.Fatal("the demo said up but /healthz does not answer")
	}
	for _, want := range []string{"Dashboard: " + d.url1 + "/", "shop-1", "shop-2", d.logDir} {
		testenv.WaitFor(t, 5*time.Second, "stdout names "+want, func() bool { return strings.Contains(d.stdout.String(), want) })
	}
	d.killShop2(t)
	d.stop(t, db)
}

// demoRun is a `shop demo` of two replicas and no agent, run as a child
// process: its output and the replicas' URLs and logs.
type demoRun struct {
	cmd            *exec.Cmd
	exited         chan error
	stdout, stderr *syncBuf
	url1, url2     string
	logDir         string
}

// startDemo starts the demo on the ports from port, over dsn; the test's
// end kills it if still running, and a failed test logs its output and
// the replicas' logs.
func startDemo(t *testing.T, dsn string, port int) *demoRun {
	d := &demoRun{exited: make(chan error, 1), stdout: &syncBuf{}, stderr: &syncBuf{}, logDir: t.TempDir(),
		url1: fmt.Sprintf("http://127.0.0.1:%d", port), url2: fmt.Sprintf("http://127.0.0.1:%d", port+1)}
	cmd := exec.Command(os.Args[0], "demo", "-replicas", "2", "-agents", "0", "-log-dir", d.logDir)
	cmd.Env = withEnv(os.Environ(), envRunMain+"=1", config.EnvMySQLDSN+"="+dsn,
		config.EnvHTTPAddr+"=127.0.0.1:"+strconv.Itoa(port), config.EnvAdminToken+"=")
	cmd.Stdout, cmd.Stderr = d.stdout, d.stderr
	d.cmd = cmd
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() // the children follow (Pdeathsig)
			<-d.exited
		}
		if t.Failed() {
			for _, name := range []string{"shop-1", "shop-2"} {
				b, _ := os.ReadFile(filepath.Join(d.logDir, name+".log"))
				t.Logf("--- %s.log\n%s", name, b)
			}
			t.Logf("--- demo stdout\n%s\n--- demo stderr\n%s", d.stdout.String(), d.stderr.String())
		}
	})
	return d
}

// killShop2 SIGKILLs shop-2: the demo reports it, shop-2 drops out of
// /api/replicas within its expiry, and shop-1 still answers.
func (d *demoRun) killShop2(t *testing.T) {
	var victim replicaEntry
	testenv.WaitFor(t, 5*time.Second, "replica 1 lists both alive", func() bool {
		got := getReplicas(t, d.url1)
		s1, s2 := got["shop-1"], got["shop-2"]
		victim = s2
		return s1.Alive && s2.Alive && s1.URL == d.url1 && s2.URL == d.url2 && s1.Kind == "shop" && s2.PID > 0
	})

	if err := syscall.Kill(victim.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill shop-2 (pid %d): %v", victim.PID, err)
	}
	killed := time.Now()
	report := fmt.Sprintf("shop-2 (pid %d) exited: signal: killed", victim.PID)
	testenv.WaitFor(t, 3*time.Second, "the demo reports the kill on stderr", func() bool {
		return strings.Contains(d.stderr.String(), report)
	})
	testenv.WaitFor(t, 7*time.Second, "shop-2 drops out of /api/replicas (5 s expiry + slack)", func() bool {
		return !getReplicas(t, d.url1)["shop-2"].Alive
	})
	t.Logf("shop-2 dropped out %v after SIGKILL", time.Since(killed).Round(time.Millisecond))
	if r, ok := getReplicas(t, d.url1)["shop-2"]; !ok || r.Alive {
		t.Errorf("shop-2 should be listed as gone (alive=false): %+v listed=%v", r, ok)
	}
	if healthy(d.url2) || !healthy(d.url1) {
		t.Fatal("after the kill: shop-2 answers or shop-1 does not (was something restarted?)")
	}
}

// stop interrupts the demo: it exits 0, shop-1 stops answering and
// removes its heartbeat row, and stdout says so.
func (d *demoRun) stop(t *testing.T, db *gorm.DB) {
	d.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("demo exited with %v after SIGINT, want 0", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("demo did not exit within 45s of SIGINT")
	}
	if healthy(d.url1) {
		t.Fatal("shop-1 still answers after the demo stopped")
	}
	var rows int64
	db.Raw("SELECT COUNT(*) FROM replicas WHERE id = 'shop-1'").Scan(&rows)
	if rows != 0 {
		t.Fatal("shop-1's heartbeat row is still there: it did not stop gracefully")
	}
	if !strings.Contains(d.stdout.String(), "shop-1") || !strings.Contains(d.stdout.String(), "stopped (exit status 0)") {
		t.Errorf("stop not reported on stdout: %s", d.stdout.String())
	}
}

// Bad demo flags are usage errors (exit 2), caught before anything starts.
func TestDemoUsage(t *testing.T) {
	t.Setenv(config.EnvAdminToken, "")
	for _, args := range [][]string{{"-replicas", "0"}, {"-agents", "-1"}, {"-replicas", "65"},
		{"-http-addr", "127.0.0.1:0"}, {"-http-addr", "127.0.0.1:65535", "-replicas", "2"},
		{"-replica-id", "x"}, {"extra"}, {"-http-addr", "0.0.0.0:8080"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"demo"}, args...), &bytes.Buffer{}, &stderr); code != 2 {
			t.Errorf("demo %v: exit %d, want 2 (stderr %q)", args, code, stderr.String())
		}
	}
	// The environment's replica id is not an error: each child gets its own.
	t.Setenv(envReplicaID, "from-env")
	if _, err := parseDemo(nil, &bytes.Buffer{}); err != nil {
		t.Fatalf("SECKILL_REPLICA_ID in the environment: %v", err)
	}
}

// A busy port is reported up front, naming the port, not through a child
// that dies.
func TestDemoPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"demo", "-replicas", "1", "-agents", "0", "-http-addr", l.Addr().String(),
		"-log-dir", t.TempDir()}, &bytes.Buffer{}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), l.Addr().String()) {
		t.Fatalf("exit %d, stderr %q; want 1 naming %s", code, stderr.String(), l.Addr())
	}
}

// The agents' binary: missing, present without `agent`, present with it.
func TestAgentBinary(t *testing.T) {
	dir := t.TempDir()
	if bin, warn := agentBinary(context.Background(), dir); bin != "" || !strings.Contains(warn, "not found") {
		t.Fatalf("missing: %q %q", bin, warn)
	}
	script := filepath.Join(dir, "loadtest")
	write := func(body string) {
		if err := os.WriteFile(script, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// What loadtest answers before `agent` is built: its usage, which
	// mentions agent (and could mention --shop) next to "unknown command".
	write(`echo 'loadtest: unknown command "agent"'; echo '  agent --shop URL  (not built yet)'; exit 2` + "\n")
	if bin, warn := agentBinary(context.Background(), dir); bin != "" || !strings.Contains(warn, "no `agent` command") {
		t.Fatalf("not built: %q %q", bin, warn)
	}
	write(`echo 'usage: loadtest agent -shop URL'; echo '  -shop string'; exit 2` + "\n")
	if bin, warn := agentBinary(context.Background(), dir); bin != script || warn != "" {
		t.Fatalf("built: %q %q", bin, warn)
	}
}

func TestWithEnv(t *testing.T) {
	got := withEnv([]string{"A=1", "B=2", "SECKILL_X=old", "C"}, "B=3", "SECKILL_X=")
	want := []string{"A=1", "C", "B=3", "SECKILL_X="}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("withEnv = %q, want %q", got, want)
	}
}

func TestAdvertiseURL(t *testing.T) {
	host, _ := os.Hostname()
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"[::1]:8080":     "http://[::1]:8080",
		"0.0.0.0:8080":   "http://" + net.JoinHostPort(host, "8080"),
		"[::]:9000":      "http://" + net.JoinHostPort(host, "9000"),
	} {
		if got := advertiseURL(addr); got != want {
			t.Errorf("advertiseURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Each agent gets every replica, its own first: it survives a killed shop.
func TestAgentShops(t *testing.T) {
	addrs := []string{"a:1", "b:2", "c:3"}
	for i, want := range []string{"http://a:1,http://b:2,http://c:3", "http://b:2,http://c:3,http://a:1",
		"http://c:3,http://a:1,http://b:2", "http://a:1,http://b:2,http://c:3"} {
		if got := strings.Join(agentShops(addrs, i), ","); got != want {
			t.Errorf("agent %d: %s, want %s", i, got, want)
		}
	}
}

// The demo applies serve's rule: beyond loopback (to share with students'
// phones) only with SECKILL_ADMIN_TOKEN, checked before anything starts.
func TestDemoRefusesBeyondLoopbackWithoutToken(t *testing.T) {
	t.Setenv(config.EnvAdminToken, "")
	for _, addr := range []string{"0.0.0.0:18480", "[::]:18480", ":18480"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"demo", "-replicas", "1", "-agents", "0", "-http-addr", addr,
			"-mysql-dsn", "x@tcp(127.0.0.1:1)/x", "-log-dir", t.TempDir()}, &bytes.Buffer{}, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), config.EnvAdminToken) || !strings.Contains(stderr.String(), "loopback") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and a message naming %s", addr, code, stderr.String(), config.EnvAdminToken)
		}
	}
}
