package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/httpapi"
)

func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080":          true,
		"127.8.9.10:1":            true,
		"[::1]:8080":              true,
		"localhost:8080":          true,
		"LocalHost:8080":          true,
		"[::ffff:127.0.0.1]:8080": true,
		":8080":                   false,
		"0.0.0.0:8080":            false,
		"[::]:8080":               false,
		"192.168.1.5:8080":        false,
		"10.0.0.1:80":             false,
		"128.0.0.1:80":            false,
		"example.com:80":          false,
		"localhost.evil.com:80":   false,
		"127.0.0.1":               false, // no port: not an address we can vet
		"":                        false,
	} {
		if got := loopbackOnly(addr); got != want {
			t.Errorf("loopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}

func setEnv(t *testing.T, kv map[string]string) {
	for k, v := range kv {
		t.Setenv(k, v)
	}
}

func TestFlagDefaults(t *testing.T) {
	all := []string{config.EnvHTTPAddr, config.EnvMySQLDSN, config.EnvRedisAddr, config.EnvRedlockAddrs,
		config.EnvZKServers, config.EnvEtcdEndpoints, config.EnvSentinelAddrs, config.EnvSentinelMaster, config.EnvAdminToken,
		envReplicaID, envLockWait, envLogLevel, config.EnvOrderRateIP, config.EnvTrustedProxies, config.EnvClientIPHeader, config.EnvTicketSecret}
	t.Run("local defaults", func(t *testing.T) { localDefaults(t, all) })
	t.Run("environment", environmentThenFlags)
	t.Run("bad values", badServeValues)
}

// localDefaults: with every variable of all empty and no flag, serve runs
// on the local services' defaults and trusts no proxy.
func localDefaults(t *testing.T, all []string) {
	for _, k := range all {
		t.Setenv(k, "")
	}
	cfg, err := parseServe("serve", "", nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{HTTPAddr: config.DefaultHTTPAddr, MySQLDSN: config.DefaultMySQLDSN,
		RedisAddr: config.DefaultRedisAddr, RedlockAddrs: config.DefaultRedlockAddrs,
		ZKServers: config.DefaultZKServers, EtcdEndpoints: config.DefaultEtcdEndpoints,
		SentinelAddrs: config.DefaultSentinelAddrs, SentinelMaster: config.DefaultSentinelMaster,
		LockWait: 10 * time.Second, LogLevel: slog.LevelInfo, OrderRateIP: httpapi.DefaultOrderRateIP,
		ClientIPHeader: httpapi.HeaderXForwardedFor}
	if len(cfg.ClientIPs.Trusted()) != 0 {
		t.Fatalf("trusted proxies by default: %v, want none", cfg.ClientIPs.Trusted())
	}
	cfg.ClientIPs = nil // compared through Trusted
	if cfg != want {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

// environmentThenFlags: every variable sets its field, and a flag wins
// over its variable.
func environmentThenFlags(t *testing.T) {
	setEnv(t, map[string]string{
		config.EnvHTTPAddr: "127.0.0.1:9999", config.EnvMySQLDSN: "u@tcp(db:3306)/x",
		config.EnvRedisAddr: "r:1", config.EnvRedlockAddrs: "a:1,b:2,c:3", config.EnvZKServers: "z:2181",
		config.EnvEtcdEndpoints: "e:2379", config.EnvSentinelAddrs: "s:1,s:2", config.EnvSentinelMaster: "m",
		config.EnvAdminToken: "tok", envReplicaID: "r1", envLockWait: "250ms", envLogLevel: "debug",
		config.EnvOrderRateIP: "0", config.EnvTrustedProxies: "10.244.0.0/16, 192.0.2.1", config.EnvClientIPHeader: "Forwarded",
	})
	cfg, err := parseServe("serve", "", nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{HTTPAddr: "127.0.0.1:9999", MySQLDSN: "u@tcp(db:3306)/x", RedisAddr: "r:1",
		RedlockAddrs: "a:1,b:2,c:3", ZKServers: "z:2181", EtcdEndpoints: "e:2379", SentinelAddrs: "s:1,s:2", SentinelMaster: "m",
		ReplicaID: "r1", LockWait: 250 * time.Millisecond,
		LogLevel: slog.LevelDebug, AdminToken: "tok", OrderRateIP: 0,
		TrustedProxies: "10.244.0.0/16, 192.0.2.1", ClientIPHeader: "Forwarded"}
	if got := strings.Join(cfg.ClientIPs.Trusted(), " "); got != "10.244.0.0/16 192.0.2.1/32" {
		t.Fatalf("trusted proxies %q", got)
	}
	cfg.ClientIPs = nil
	if cfg != want {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
	// Flags win over the environment.
	cfg, err = parseServe("serve", "", []string{"-http-addr", "[::1]:7000", "-redis-addr", "", "-lock-wait", "3s",
		"-log-level", "error", "-replica-id", "r2", "-order-rate-ip", "7"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.HTTPAddr != "[::1]:7000" || cfg.RedisAddr != "" || cfg.LockWait != 3*time.Second ||
		cfg.LogLevel != slog.LevelError || cfg.ReplicaID != "r2" || cfg.MySQLDSN != "u@tcp(db:3306)/x" || cfg.OrderRateIP != 7 {
		t.Fatalf("flags did not override: %+v", cfg)
	}
}

// badServeValues: a bad flag or variable is refused, naming the variable.
func badServeValues(t *testing.T) {
	for _, args := range [][]string{{"-http-addr", "nope"}, {"-lock-wait", "soon"}, {"-log-level", "loud"},
		{"-replica-id", strings.Repeat("r", 65)}, {"extra"}, {"-admin-token", "x"}, {"-order-rate-ip", "-1"},
		{"-order-rate-ip", "many"}, {"-trusted-proxies", "proxy.local"}, {"-client-ip-header", "X-Real-IP"}} {
		if _, err := parseServe("serve", "", args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	t.Setenv(envLockWait, "soon")
	if _, err := parseServe("serve", "", nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), envLockWait) {
		t.Errorf("bad %s: %v", envLockWait, err)
	}
	t.Setenv(envLockWait, "")
	t.Setenv(config.EnvOrderRateIP, "lots")
	if _, err := parseServe("serve", "", nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), config.EnvOrderRateIP) {
		t.Errorf("bad %s: %v", config.EnvOrderRateIP, err)
	}
	t.Setenv(config.EnvOrderRateIP, "")
	t.Setenv(config.EnvTrustedProxies, "10.0.0.0/8,10.1.2.3/40")
	if _, err := parseServe("serve", "", nil, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), config.EnvTrustedProxies) || !strings.Contains(err.Error(), "10.1.2.3/40") {
		t.Errorf("bad %s: %v", config.EnvTrustedProxies, err)
	}
}

func TestDefaultReplicaID(t *testing.T) {
	host, _ := os.Hostname()
	if got := defaultReplicaID("127.0.0.1:8081"); got != host+":8081" {
		t.Fatalf("defaultReplicaID = %q, want %q", got, host+":8081")
	}
}

// Usage goes to stderr with exit 2, and serve -h names every flag and
// every environment variable, the admin token included.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"bogus"}, {"-h"}, {"serve", "-h"}, {"demo", "-help"}, {"migrate", "-h"},
		{"serve", "-nope"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage: shop") {
			t.Errorf("%v: usage not on stderr: stdout %q stderr %q", args, stdout.String(), stderr.String())
		}
	}
	var stderr bytes.Buffer
	run(context.Background(), []string{"serve", "-h"}, &bytes.Buffer{}, &stderr)
	for _, want := range []string{"-http-addr", "-mysql-dsn", "-redis-addr", "-redlock-addrs", "-zk-servers", "-etcd-endpoints",
		"-replica-id", "-lock-wait", "-log-level", "-order-rate-ip", config.EnvOrderRateIP, "-trusted-proxies", config.EnvTrustedProxies,
		"-client-ip-header", config.EnvClientIPHeader, config.EnvHTTPAddr, config.EnvMySQLDSN, config.EnvRedisAddr,
		config.EnvRedlockAddrs, config.EnvZKServers, config.EnvAdminToken, envReplicaID, envLockWait, envLogLevel} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("serve -h does not mention %s", want)
		}
	}
}

func TestDashboardURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080/",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/",
		"[::]:8080":      "http://127.0.0.1:8080/",
		"[::1]:9000":     "http://[::1]:9000/",
	} {
		if got := dashboardURL(addr); got != want {
			t.Errorf("dashboardURL(%q) = %q, want %q", addr, got, want)
		}
	}
}
