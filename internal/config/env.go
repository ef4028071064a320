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
	// EnvRedisPersistence is the persistence the default Redis (the stock
	// and the order queue) starts with: none, everysec or always. Read by
	// scripts/services.sh and docker-compose.yml, not by the shop, which
	// reads and changes it at run time (PUT /api/queue/durability).
	EnvRedisPersistence = "SECKILL_REDIS_PERSISTENCE"

	DefaultMySQLDSN     = "root@tcp(127.0.0.1:13306)/seckill?parseTime=true"
	DefaultRedisAddr    = "127.0.0.1:16379"
	DefaultRedlockAddrs = "127.0.0.1:16380,127.0.0.1:16381,127.0.0.1:16382"
	DefaultZKServers    = "127.0.0.1:12181"
	DefaultHTTPAddr     = "127.0.0.1:8080"
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
