package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// PrivateRedis starts n redis-server processes of the test's own, each on a
// free port of 127.0.0.1 with no persistence and DEBUG allowed from local
// clients, and returns their addresses; they are killed at cleanup. Tests
// that restart or crash a Redis use these, never the shared 16379-16382,
// which other packages' tests use at the same time. Without redis-server
// the test fails in CI and is skipped elsewhere.
func PrivateRedis(t testing.TB, n int) []string {
	t.Helper()
	SkipInShort(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Unavailable(t, "redis-server (for a private Redis)", err)
	}
	// Absolute: DEBUG CRASH-AND-RECOVER re-execs the server by the path it
	// was started with.
	if bin, err = filepath.Abs(bin); err != nil {
		t.Fatal(err)
	}
	addrs := make([]string, 0, n)
	for range n {
		addr, err := startRedis(t, bin)
		for try := 1; err != nil && try < 3; try++ { // the free port was taken meanwhile
			addr, err = startRedis(t, bin)
		}
		if err != nil {
			t.Fatalf("private redis: %v", err)
		}
		addrs = append(addrs, addr)
	}
	return addrs
}

// startRedis starts one server and waits (10 s at most) for its PONG. An
// error means it exited at start (its log says why), typically because
// another process took the port first.
func startRedis(t testing.TB, bin string) (string, error) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("private redis: %v", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	dir := t.TempDir()
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--enable-debug-command", "local",
		"--daemonize", "no", "--dir", dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("private redis: start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a re-exec'd server keeps the pid: this still hits it
		<-exited
	})
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return addr, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return "", fmt.Errorf("redis-server on %s exited at start: %s", addr, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("private redis on %s does not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another process
// may take it before redis-server binds it; that start then fails loudly.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
