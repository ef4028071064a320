// Package config names the SECKILL_* environment variables every process reads
// and their local defaults (the ports scripts/services.sh uses), so that the
// shop, the load-test tool and the tests read them the same way.
package config

import (
	"os"
	"strings"
)

// Environment variable names and their local defaults.
const (
	EnvMySQLDSN     = "SECKILL_MYSQL_DSN"
	EnvRedisAddr    = "SECKILL_REDIS_ADDR"
	EnvRedlockAddrs = "SECKILL_REDLOCK_ADDRS"
	EnvZKServers    = "SECKILL_ZK_SERVERS"
	EnvHTTPAddr     = "SECKILL_HTTP_ADDR"
	EnvAdminToken   = "SECKILL_ADMIN_TOKEN"
	EnvFaults       = "SECKILL_FAULTS"
	// EnvTicketSecret signs purchase tickets; unset, the replicas share
	// one kept in the database.
	EnvTicketSecret = "SECKILL_TICKET_SECRET"
	// EnvOrderRateIP is the requests per second each client IP may send to
	// the order routes (GET /api/orders/{ref} and its /pay together); 0 for
	// no limit. Unset: the shop's default (httpapi.DefaultOrderRateIP).
	EnvOrderRateIP = "SECKILL_ORDER_RATE_IP"
	// EnvTrustedProxies lists the reverse proxies (IP addresses or CIDR
	// ranges, comma-separated; none by default) whose forwarding header
	// names the client that every per-client limit keys on; a request from
	// any other peer is that peer, whatever its headers say.
	// EnvClientIPHeader is that header: X-Forwarded-For (the default) or
	// Forwarded (RFC 7239), the one the proxies write.
	EnvTrustedProxies = "SECKILL_TRUSTED_PROXIES"
	EnvClientIPHeader = "SECKILL_CLIENT_IP_HEADER"
	// EnvRedisPersistence is the persistence the default Redis (the stock
	// and the order queue) starts with: none, everysec or always. Read by
	// scripts/services.sh and docker-compose.yml, not by the shop, which
	// reads and changes it at run time (PUT /api/queue/durability).
	EnvRedisPersistence = "SECKILL_REDIS_PERSISTENCE"
	// EnvEtcdEndpoints lists the etcd servers of the etcd strategy.
	EnvEtcdEndpoints = "SECKILL_ETCD_ENDPOINTS"
	// EnvSentinelAddrs lists the Redis Sentinels that watch the replicated
	// Redis (one master, one replica) of the redis-sentinel strategy;
	// EnvSentinelMaster is the master's name they know it by.
	EnvSentinelAddrs  = "SECKILL_SENTINEL_ADDRS"
	EnvSentinelMaster = "SECKILL_SENTINEL_MASTER"
	// EnvZKEnsembleServers lists the three-server ZooKeeper ensemble that
	// scripts/services.sh starts (the demo's replicas, kill_zk_server, the
	// chaos run); docker-compose.yml's ZooKeeper is an ensemble too, and in
	// both EnvZKServers lists all three by default.
	EnvZKEnsembleServers = "SECKILL_ZK_ENSEMBLE_SERVERS"
	// EnvServicesDir is the folder where scripts/services.sh keeps each
	// service's data, log and pid file (.run at the repository's root):
	// the kill_zk_server fault finds the ensemble's servers there.
	EnvServicesDir = "SECKILL_SERVICES_DIR"
	// EnvPprof, set to on, serves Go's profiler under /debug/pprof/ on
	// every replica (behind the admin token when one is set).
	EnvPprof = "SECKILL_PPROF"

	DefaultMySQLDSN     = "root@tcp(127.0.0.1:13306)/seckill?parseTime=true"
	DefaultRedisAddr    = "127.0.0.1:16379"
	DefaultRedlockAddrs = "127.0.0.1:16380,127.0.0.1:16381,127.0.0.1:16382"
	// DefaultZKServers is the ensemble (DefaultZKEnsembleServers): what a
	// replica uses unless told otherwise, so every lesson runs on the demo.
	DefaultZKServers = DefaultZKEnsembleServers
	// DefaultZKStandalone is the one-server ZooKeeper services.sh also
	// starts: the tests that want a server nobody kills use it.
	DefaultZKStandalone = "127.0.0.1:12181"
	DefaultHTTPAddr     = "127.0.0.1:8080"

	DefaultEtcdEndpoints     = "127.0.0.1:12379"
	DefaultSentinelAddrs     = "127.0.0.1:16385,127.0.0.1:16386,127.0.0.1:16387"
	DefaultSentinelMaster    = "seckill"
	DefaultZKEnsembleServers = "127.0.0.1:12191,127.0.0.1:12192,127.0.0.1:12193"
)

// Get returns the variable's value, or def when it is unset or empty.
func Get(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

// List splits a comma-separated value, dropping empty items.
func List(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
