// Package testenv connects integration tests to the real services that
// scripts/services.sh starts. A service that does not answer fails the test
// under CI (CI set) and skips it elsewhere: a developer without services can
// still run the unit tests, CI can never pass by skipping.
package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/migrations"
)

// InCI reports whether the tests run in CI, where nothing may be skipped.
func InCI() bool { return os.Getenv("CI") != "" }

// SkipInShort skips the calling test under -short (make test-quick), which
// runs the unit tests of pure logic only: every helper here that reaches a
// service, builds a binary or starts a process calls it first. make test and
// CI never pass -short.
func SkipInShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs services or processes: skipped under -short (make test-quick); make test runs it")
	}
}

// Unavailable fails the test in CI and skips it elsewhere.
func Unavailable(t testing.TB, service string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s not reachable (%v); run `make services-up`", service, err)
	if InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// MySQLDSN returns the DSN of database seckill_test_<name>, created and
// migrated. Each test package uses its own name: packages run in parallel and
// some tests count rows.
func MySQLDSN(t testing.TB, name string) string {
	t.Helper()
	SkipInShort(t)
	cfg, err := mysql.ParseDSN(config.Get(config.EnvMySQLDSN, config.DefaultMySQLDSN))
	if err != nil {
		t.Fatalf("bad %s: %v", config.EnvMySQLDSN, err)
	}
	cfg.DBName = "seckill_test_" + strings.ReplaceAll(name, "-", "_")
	cfg.ParseTime = true
	dsn := cfg.FormatDSN()
	if err := reachable(cfg.Addr); err != nil {
		Unavailable(t, "MariaDB at "+cfg.Addr, err)
	}
	migrateOnce(t, dsn)
	return dsn
}

var migrated sync.Map

func migrateOnce(t testing.TB, dsn string) {
	t.Helper()
	if _, ok := migrated.Load(dsn); ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := migrations.Apply(ctx, dsn, discardLogger()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	migrated.Store(dsn, true)
}

// DB returns a migrated gorm handle on seckill_test_<name>, closed at cleanup.
func DB(t testing.TB, name string) *gorm.DB {
	t.Helper()
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: MySQLDSN(t, name)})
	if err != nil {
		Unavailable(t, "MariaDB", err)
	}
	t.Cleanup(func() { inventory.Close(db) })
	return db
}

// Redis returns a client of SECKILL_REDIS_ADDR, closed at cleanup.
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	SkipInShort(t)
	return redisClient(t, lockstrategy.RedisOptions(config.Get(config.EnvRedisAddr, config.DefaultRedisAddr), 256)) // as the shop's
}

// Redlock returns one client per master of SECKILL_REDLOCK_ADDRS.
func Redlock(t testing.TB) []*redis.Client {
	t.Helper()
	SkipInShort(t)
	var out []*redis.Client
	for _, a := range config.List(config.Get(config.EnvRedlockAddrs, config.DefaultRedlockAddrs)) {
		out = append(out, redisClient(t, lockstrategy.RedlockOptions(a, 256)))
	}
	return out
}

// redisClient is a client with options o (the shop's), answering PING.
func redisClient(t testing.TB, o *redis.Options) *redis.Client {
	t.Helper()
	addr := o.Addr
	c := redis.NewClient(o)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		Unavailable(t, "Redis at "+addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// ZKServers returns SECKILL_ZK_SERVERS after checking the first one answers.
func ZKServers(t testing.TB) []string {
	t.Helper()
	SkipInShort(t)
	servers := config.List(config.Get(config.EnvZKServers, config.DefaultZKServers))
	if err := reachable(servers[0]); err != nil {
		Unavailable(t, "ZooKeeper at "+servers[0], err)
	}
	return servers
}

// Etcd returns SECKILL_ETCD_ENDPOINTS after checking the first one answers.
func Etcd(t testing.TB) []string {
	t.Helper()
	SkipInShort(t)
	eps := config.List(config.Get(config.EnvEtcdEndpoints, config.DefaultEtcdEndpoints))
	if err := reachable(eps[0]); err != nil {
		Unavailable(t, "etcd at "+eps[0], err)
	}
	return eps
}

// Backends returns every backend, for tests over all strategies.
func Backends(t testing.TB, dbName string) lockstrategy.Backends {
	t.Helper()
	return lockstrategy.Backends{
		DB:        DB(t, dbName),
		Redis:     Redis(t),
		Redlock:   Redlock(t),
		ZKServers: ZKServers(t),
		Etcd:      Etcd(t),
		Sentinel:  Sentinel(t),
	}
}

// Sentinel returns a go-redis failover client over SECKILL_SENTINEL_ADDRS
// (the replicated Redis of redis-sentinel) after checking that the
// Sentinels name a master that answers.
func Sentinel(t testing.TB) *redis.Client {
	t.Helper()
	addrs := config.List(config.Get(config.EnvSentinelAddrs, config.DefaultSentinelAddrs))
	master := config.Get(config.EnvSentinelMaster, config.DefaultSentinelMaster)
	c := redis.NewFailoverClient(lockstrategy.SentinelOptions(master, addrs, 256))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		Unavailable(t, fmt.Sprintf("Redis Sentinel master %s via %v", master, addrs), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Reachable says whether addr accepts a TCP connection (within 2 s).
func Reachable(addr string) error { return reachable(addr) }

func reachable(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}
