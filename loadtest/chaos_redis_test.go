package main

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

	"github.com/seckill-lab/seckill/internal/testenv"
)

// configRedis starts a redis-server of the test's own from a config file,
// as scripts/services.sh starts the default Redis: PUT
// /api/queue/durability saves its mode there (CONFIG REWRITE), and the
// restart_redis fault's re-exec reads it back. It starts without
// persistence, allows DEBUG from local clients and is killed at cleanup.
func configRedis(t *testing.T) string {
	t.Helper()
	testenv.SkipInShort(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Unavailable(t, "redis-server (for a private Redis)", err)
	}
	if bin, err = filepath.Abs(bin); err != nil { // the re-exec uses the path it was started by
		t.Fatal(err)
	}
	var lastErr error
	for try := 0; try < 3; try++ { // the free port may be taken meanwhile
		addr, err := startConfigRedis(t, bin)
		if err == nil {
			return addr
		}
		lastErr = err
	}
	t.Fatalf("private redis from a config file: %v", lastErr)
	return ""
}

func startConfigRedis(t *testing.T, bin string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\ndaemonize no\ndir %s\nlogfile %s\nsave \"\"\nappendonly no\n"+
		"appendfsync everysec\nenable-debug-command local\n", port, dir, filepath.Join(dir, "redis.log"))
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited }) // a re-exec keeps the pid
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
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
			return "", fmt.Errorf("redis-server on %s does not answer: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
