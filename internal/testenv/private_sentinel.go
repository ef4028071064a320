package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelMaster is the master name of a PrivateSentinel set.
const SentinelMaster = "seckill"

// PrivateSentinel starts a replicated Redis of the test's own, as
// scripts/services.sh runs the shared one: a master, a replica and three
// Sentinels (quorum 2, down-after 1 s), all killed at cleanup. A test that
// fails the master over uses one of these: the shared set serves the
// conformance suite meanwhile. It returns the Sentinels' addresses once they
// know the master, its replica (in sync) and each other.
func PrivateSentinel(t testing.TB) []string {
	t.Helper()
	master := NewRedisProcess(t)
	master.Start()
	replica := NewRedisProcess(t)
	replica.ExtraConfig = "replicaof " + strings.Replace(master.Addr, ":", " ", 1)
	replica.Start()
	var addrs []string
	for range 3 {
		addrs = append(addrs, startSentinel(t, master.Addr))
	}
	WaitFor(t, 60*time.Second, "the private Sentinels to know the master, its replica in sync and each other", func() bool {
		return sentinelReady(addrs, master.Addr)
	})
	return addrs
}

func startSentinel(t testing.TB, masterAddr string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Unavailable(t, "redis-server (for a private Sentinel)", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host, mport, _ := net.SplitHostPort(masterAddr)
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s %s %s 2\n"+
		"sentinel down-after-milliseconds %s 1000\nsentinel failover-timeout %s 6000\n",
		port, dir, SentinelMaster, host, mport, SentinelMaster, SentinelMaster)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "sentinel.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf, "--sentinel")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("private sentinel: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// sentinelReady: every Sentinel names masterAddr, sees one replica and the
// two other Sentinels, and the master's replica is online.
func sentinelReady(addrs []string, masterAddr string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, a := range addrs {
		c := redis.NewSentinelClient(&redis.Options{Addr: a, MaxRetries: -1})
		hp, err := c.GetMasterAddrByName(ctx, SentinelMaster).Result()
		replicas, rerr := c.Replicas(ctx, SentinelMaster).Result()
		peers, perr := c.Sentinels(ctx, SentinelMaster).Result()
		c.Close()
		if err != nil || rerr != nil || perr != nil || len(hp) != 2 || net.JoinHostPort(hp[0], hp[1]) != masterAddr ||
			len(replicas) != 1 || len(peers) != len(addrs)-1 {
			return false
		}
	}
	m := redis.NewClient(&redis.Options{Addr: masterAddr, MaxRetries: -1})
	defer m.Close()
	info, err := m.Info(ctx, "replication").Result()
	return err == nil && strings.Contains(info, "state=online")
}
