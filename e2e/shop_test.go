// Package e2e runs real `shop serve` processes against the real services and
// checks sale results in the database through the API.
package e2e

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
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// shopBinary is cmd/shop, built once per test binary.
func shopBinary(t *testing.T) string {
	return testenv.Binary(t, "github.com/seckill-lab/seckill/cmd/shop")
}

// replica is one running `shop serve`.
type replica struct {
	URL string
	cmd *exec.Cmd
}

// startReplicas starts n `shop serve` processes on free ports over database
// seckill_test_<db>, waits until each answers /healthz, and stops them at
// cleanup (SIGTERM: the graceful path).
func startReplicas(t *testing.T, n int, db string) []*replica {
	t.Helper()
	bin := shopBinary(t)
	dsn := testenv.MySQLDSN(t, db)
	var out []*replica
	for i := range n {
		addr := freeAddr(t)
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(),
			config.EnvMySQLDSN+"="+dsn, config.EnvHTTPAddr+"="+addr, config.EnvAdminToken+"=")
		cmd.Args = append(cmd.Args, "-replica-id", fmt.Sprintf("r%d", i+1))
		logf, _ := os.Create(filepath.Join(t.TempDir(), fmt.Sprintf("shop-%d.log", i+1)))
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := &replica{URL: "http://" + addr, cmd: cmd}
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("replica %s did not exit cleanly on SIGINT: %v (log %s)", addr, err, logf.Name())
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Errorf("replica %s did not stop within 20s of SIGINT", addr)
			}
			logf.Close()
			showProblems(t, "replica "+addr, logf.Name())
		})
		waitHealthy(t, r.URL, logf.Name())
		out = append(out, r)
	}
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitHealthy(t *testing.T, url, logName string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(logName)
	t.Fatalf("%s not healthy within 30s; log:\n%s", url, log)
}

// call sends a JSON request and decodes the JSON answer into out (if not nil).
func call(ctx context.Context, method, url string, body, out any) (int, error) {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil && !strings.Contains(err.Error(), "EOF") {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}

// showProblems logs, for a failed test, the warnings and errors a process
// wrote (the last 40): its log lives in a temporary folder that is gone once
// the test ends, and a 500 "internal" names its cause only there.
func showProblems(t *testing.T, who, logName string) {
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
