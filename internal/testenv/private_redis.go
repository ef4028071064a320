package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
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
	addrs := make([]string, 0, n)
	for range n {
		r := NewRedisProcess(t)
		err := r.start()
		for try := 1; err != nil && try < 3; try++ { // the free port was taken meanwhile
			r = NewRedisProcess(t)
			err = r.start()
		}
		if err != nil {
			t.Fatalf("private redis: %v", err)
		}
		addrs = append(addrs, r.Addr)
	}
	return addrs
}

// RedisProcess is a private redis-server (as PrivateRedis starts them) that a
// test starts, kills and starts again on the same address: a backend that
// is down when a replica starts, or goes away and comes back.
type RedisProcess struct {
	Addr string
	t    testing.TB
	bin  string
	port int
	dir  string

	// ExtraConfig is appended to the config file written at the first
	// start (a replicaof line, say).
	ExtraConfig string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// NewRedisProcess reserves a free port for a private Redis without starting
// it; it is killed at cleanup if running.
func NewRedisProcess(t testing.TB) *RedisProcess {
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
	port, err := freePort()
	if err != nil {
		t.Fatalf("private redis: %v", err)
	}
	r := &RedisProcess{t: t, bin: bin, port: port, dir: t.TempDir(),
		Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	t.Cleanup(r.Kill)
	return r
}

// Start starts the server and waits for its PONG; the test fails if it
// cannot.
func (r *RedisProcess) Start() {
	r.t.Helper()
	if err := r.start(); err != nil {
		r.t.Fatalf("private redis: %v", err)
	}
}

// Kill kills the server (SIGKILL: no goodbye to its clients) and waits for
// it to exit; nothing if it is not running.
func (r *RedisProcess) Kill() {
	r.mu.Lock()
	cmd, exited := r.cmd, r.exited
	r.cmd = nil
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill() // a re-exec'd server keeps the pid: this still hits it
	<-exited
}

// start starts the server and waits (10 s at most) for its PONG. An error
// means it exited at start (its log says why), typically because another
// process took the port first.
func (r *RedisProcess) start() error {
	t := r.t
	t.Helper()
	logf, err := os.OpenFile(filepath.Join(r.dir, "redis.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// From a config file, written once, as scripts/services.sh starts
	// them: CONFIG REWRITE (a durability switched at run time) saves into
	// it, and the next start keeps it.
	conf := filepath.Join(r.dir, "redis.conf")
	if _, err := os.Stat(conf); err != nil {
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\nsave \"\"\nappendonly no\nenable-debug-command local\ndaemonize no\ndir %s\n%s\n",
			r.port, r.dir, r.ExtraConfig)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(r.bin, conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("private redis: start %s: %v", r.bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	r.mu.Lock()
	r.cmd, r.exited = cmd, exited
	r.mu.Unlock()
	c := redis.NewClient(&redis.Options{Addr: r.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
			return fmt.Errorf("redis-server on %s exited at start: %s", r.Addr, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("private redis on %s does not answer: %v", r.Addr, err)
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
