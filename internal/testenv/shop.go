package testenv

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
)

// ShopOptions say how StartShop starts a `shop serve`.
type ShopOptions struct {
	// DB is the test database's short name: seckill_test_<DB> (required).
	DB string
	// ReplicaID is the replica's -replica-id ("" lets the shop choose).
	ReplicaID string
	// AdminToken is SECKILL_ADMIN_TOKEN ("": none required).
	AdminToken string
	// Env adds NAME=value pairs over the test's environment.
	Env []string
	// AllowKill accepts a shop that died of SIGKILL before the cleanup (a
	// fault the test injects may kill it).
	AllowKill bool
}

// Shop is one `shop serve` a test started: stopped with SIGINT at the
// test's cleanup, which expects a clean exit, unless the test killed it.
type Shop struct {
	URL string // http://127.0.0.1:port
	Log string // the path of its log (stdout and stderr)

	cmd    *exec.Cmd
	killed bool
}

// healthyWithin bounds a shop's start: a loaded machine with -race
// binaries takes seconds.
const healthyWithin = 60 * time.Second

// StartShop builds cmd/shop once per test binary (Binary), starts `shop
// serve` on a free port over the test database o.DB, and waits until it
// answers /healthz. At cleanup it is stopped with SIGINT and must exit
// cleanly within 20 s; a failed test shows the warnings and errors it
// logged.
func StartShop(t testing.TB, o ShopOptions) *Shop {
	t.Helper()
	dsn := MySQLDSN(t, o.DB) // skips (or fails in CI) without MariaDB
	bin := Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
	addr := freeAddr(t)
	args := []string{"serve"}
	if o.ReplicaID != "" {
		args = append(args, "-replica-id", o.ReplicaID)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), o.Env...),
		config.EnvMySQLDSN+"="+dsn, config.EnvHTTPAddr+"="+addr, config.EnvAdminToken+"="+o.AdminToken)
	s := &Shop{URL: "http://" + addr, Log: filepath.Join(t.TempDir(), "shop-"+strings.ReplaceAll(addr, ":", "-")+".log"), cmd: cmd}
	logf, err := os.Create(s.Log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer logf.Close()
		if !s.killed {
			s.stop(t, o.AllowKill)
		}
		ShowProblems(t, "shop "+addr, s.Log)
	})
	s.waitHealthy(t)
	return s
}

// Kill SIGKILLs the shop: no graceful stop (its discovery row stays until
// it expires), and no complaint at cleanup.
func (s *Shop) Kill(t testing.TB) {
	t.Helper()
	s.killed = true
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
}

// stop SIGINTs the shop and expects a clean exit within 20 s (or a death
// by SIGKILL, when allowed).
func (s *Shop) stop(t testing.TB, allowKill bool) {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !(allowKill && diedOfSIGKILL(s.cmd)) {
			t.Errorf("shop %s did not exit cleanly on SIGINT: %v (log %s)", s.URL, err, s.Log)
		}
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("shop %s did not stop within 20 s of SIGINT", s.URL)
	}
}

// diedOfSIGKILL says whether cmd (waited for) died of SIGKILL.
func diedOfSIGKILL(cmd *exec.Cmd) bool {
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func (s *Shop) waitHealthy(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(healthyWithin)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.URL + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(s.Log)
	t.Fatalf("shop %s not healthy within %v; log:\n%s", s.URL, healthyWithin, log)
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// ShowProblems logs, for a failed test, the last 40 warnings and errors a
// process wrote to its log: the log lives in a temporary folder that is
// gone once the test ends, and a 500 "internal" names its cause only there.
func ShowProblems(t testing.TB, who, logName string) {
	t.Helper()
	if !t.Failed() {
		return
	}
	b, _ := os.ReadFile(logName)
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		// The shop logs JSON; the load-test tools text.
		if strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, `"level":"WARN"`) ||
			strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") || strings.Contains(l, "panic") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	if len(lines) > 0 {
		t.Logf("%s logged:\n%s", who, strings.Join(lines, "\n"))
	}
}
