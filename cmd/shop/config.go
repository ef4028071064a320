package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/httpapi"
)

// Environment variables of the shop beyond the backends' and the admin
// token's (which live in internal/config): they give every flag an environment twin, so that the
// demo and CI can configure replicas without building command lines.
const (
	envReplicaID = "SECKILL_REPLICA_ID"
	envLockWait  = "SECKILL_LOCK_WAIT"
	envLogLevel  = "SECKILL_LOG_LEVEL"
)

// serveConfig is everything `shop serve` and `shop demo` are configured with.
type serveConfig struct {
	HTTPAddr       string
	MySQLDSN       string
	RedisAddr      string        // empty: no Redis, its strategies report available=false
	RedlockAddrs   string        // comma-separated masters; empty: no redlock
	ZKServers      string        // comma-separated; empty: no zookeeper
	EtcdEndpoints  string        // comma-separated; empty: no etcd
	SentinelAddrs  string        // comma-separated Sentinels of redis-sentinel; empty: none
	SentinelMaster string        // the master's name they watch
	ReplicaID      string        // default hostname:port
	LockWait       time.Duration // default 10s
	LogLevel       slog.Level
	// OrderRateIP: requests per second per client IP on the order routes
	// (reading and paying an order); 0 for no limit.
	OrderRateIP int
	// TrustedProxies (comma-separated IPs or CIDR ranges) may name the
	// client in ClientIPHeader; ClientIPs is both, checked by parseServe.
	TrustedProxies string
	ClientIPHeader string
	ClientIPs      *httpapi.ClientIPs
	// AdminToken comes from SECKILL_ADMIN_TOKEN only: a flag would show the
	// secret in ps and in shell history.
	AdminToken string
	// TicketSecret signs tickets and order tokens; from
	// SECKILL_TICKET_SECRET only, like the token. Empty: the replicas
	// share a random one kept in the database.
	TicketSecret string
}

// flagSet returns the flags of serve/demo bound to cfg, their defaults taken
// from the environment first and the local defaults second.
func flagSet(name, summary string, cfg *serveConfig, stderr io.Writer) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	lockWait, err := time.ParseDuration(config.Get(envLockWait, "10s"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envLockWait, err)
	}
	orderRate, err := strconv.Atoi(config.Get(config.EnvOrderRateIP, strconv.Itoa(httpapi.DefaultOrderRateIP)))
	if err != nil || orderRate < 0 {
		return nil, fmt.Errorf("%s: want requests per second, 0 or more, not %q", config.EnvOrderRateIP, config.Get(config.EnvOrderRateIP, ""))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(config.Get(envLogLevel, "info"))); err != nil {
		return nil, fmt.Errorf("%s: %w", envLogLevel, err)
	}
	fs.StringVar(&cfg.HTTPAddr, "http-addr", config.Get(config.EnvHTTPAddr, config.DefaultHTTPAddr),
		"`host:port` to serve on; beyond loopback only with SECKILL_ADMIN_TOKEN set (env "+config.EnvHTTPAddr+")")
	fs.StringVar(&cfg.MySQLDSN, "mysql-dsn", config.Get(config.EnvMySQLDSN, config.DefaultMySQLDSN),
		"MariaDB/MySQL `DSN` (go-sql-driver format); required (env "+config.EnvMySQLDSN+")")
	fs.StringVar(&cfg.RedisAddr, "redis-addr", config.Get(config.EnvRedisAddr, config.DefaultRedisAddr),
		"Redis `host:port` of the redis strategies; \"\" for none (env "+config.EnvRedisAddr+")")
	fs.StringVar(&cfg.RedlockAddrs, "redlock-addrs", config.Get(config.EnvRedlockAddrs, config.DefaultRedlockAddrs),
		"comma-separated independent Redis masters of redlock; \"\" for none (env "+config.EnvRedlockAddrs+")")
	fs.StringVar(&cfg.ZKServers, "zk-servers", config.Get(config.EnvZKServers, config.DefaultZKServers),
		"comma-separated ZooKeeper servers; \"\" for none (env "+config.EnvZKServers+")")
	fs.StringVar(&cfg.EtcdEndpoints, "etcd-endpoints", config.Get(config.EnvEtcdEndpoints, config.DefaultEtcdEndpoints),
		"comma-separated etcd endpoints of the etcd strategy; \"\" for none (env "+config.EnvEtcdEndpoints+")")
	fs.StringVar(&cfg.SentinelAddrs, "sentinel-addrs", config.Get(config.EnvSentinelAddrs, config.DefaultSentinelAddrs),
		"comma-separated Redis Sentinels of the redis-sentinel strategy; \"\" for none (env "+config.EnvSentinelAddrs+")")
	fs.StringVar(&cfg.SentinelMaster, "sentinel-master", config.Get(config.EnvSentinelMaster, config.DefaultSentinelMaster),
		"`name` of the master the Sentinels watch (env "+config.EnvSentinelMaster+")")
	fs.StringVar(&cfg.ReplicaID, "replica-id", config.Get(envReplicaID, ""),
		"`name` written on every order (at most 64 chars); default hostname:port (env "+envReplicaID+")")
	fs.DurationVar(&cfg.LockWait, "lock-wait", lockWait,
		"how long a buyer waits for the lock before 503 lock_timeout (env "+envLockWait+")")
	fs.Func("order-rate-ip", fmt.Sprintf("`requests` per second each client IP may send to GET /api/orders/{ref} and its /pay, together; 0 for no limit (default %d; env %s)", orderRate, config.EnvOrderRateIP),
		func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("want requests per second, 0 or more")
			}
			cfg.OrderRateIP = n
			return nil
		})
	cfg.OrderRateIP = orderRate
	fs.StringVar(&cfg.TrustedProxies, "trusted-proxies", config.Get(config.EnvTrustedProxies, ""),
		"comma-separated `addresses` (IPs or CIDR ranges) of the reverse proxies in front, whose forwarding header names the client "+
			"every per-client limit keys on; none by default: the client is the TCP peer (env "+config.EnvTrustedProxies+")")
	fs.StringVar(&cfg.ClientIPHeader, "client-ip-header", config.Get(config.EnvClientIPHeader, httpapi.HeaderXForwardedFor),
		"`header` the trusted proxies name the client in: X-Forwarded-For or Forwarded (env "+config.EnvClientIPHeader+")")
	fs.TextVar(&cfg.LogLevel, "log-level", level, "log `level`: debug, info, warn or error (env "+envLogLevel+")")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: shop %s [flags]\n\n%s\n\nFlags (each defaults to its environment variable, then to the local default):\n", name, summary)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, `
Environment only:
  %s
    	bearer token that administrative writes (POST /api/sales) require:
    	clients send "Authorization: Bearer <token>". Not a flag, so that it shows
    	in neither ps nor shell history. Without it the shop refuses to listen
    	beyond loopback (127.0.0.0/8, ::1, localhost).
  %s
    	signs purchase tickets and order tokens, the same on every replica; unset,
    	the replicas share a random one kept in the database.
Beyond loopback both must be secrets: a known placeholder (change-me...) or
fewer than %d bytes is refused. Make one: %s
`, config.EnvAdminToken, config.EnvTicketSecret, config.MinSecretBytes, config.MakeSecret)
	}
	cfg.AdminToken = config.Get(config.EnvAdminToken, "")
	cfg.TicketSecret = config.Get(config.EnvTicketSecret, "")
	return fs, nil
}

// parseServe parses args into a complete serveConfig.
func parseServe(name, summary string, args []string, stderr io.Writer) (serveConfig, error) {
	var cfg serveConfig
	fs, err := flagSet(name, summary, &cfg, stderr)
	if err != nil {
		return cfg, err
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return cfg, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if _, _, err := net.SplitHostPort(cfg.HTTPAddr); err != nil {
		return cfg, fmt.Errorf("-http-addr %q: %w", cfg.HTTPAddr, err)
	}
	if cfg.ClientIPs, err = httpapi.NewClientIPs(cfg.TrustedProxies, cfg.ClientIPHeader); err != nil {
		return cfg, fmt.Errorf("-trusted-proxies / %s: %w", config.EnvTrustedProxies, err)
	}
	if len(cfg.ReplicaID) > 64 {
		return cfg, errors.New("-replica-id: at most 64 characters (orders.replica_id)")
	}
	return cfg, nil
}

// defaultReplicaID is hostname:port, unique per replica on one machine and
// readable on the dashboard.
func defaultReplicaID(listenAddr string) string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(listenAddr)
	id := host + ":" + port
	if len(id) > 64 {
		id = id[len(id)-64:]
	}
	return id
}

// loopbackOnly reports whether addr listens on loopback only: 127.0.0.0/8,
// ::1 or localhost. An empty host (":8080") listens on every interface.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
