package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Pool sizes. The redis strategy's waiters each hold a connection while
// blocked in BLPOP, so the main pool must exceed the concurrent buyers per
// replica; redlock's calls are short, a smaller pool per master is enough.
const (
	redisPoolSize   = 512
	redlockPoolSize = 128
	probeTimeout    = 2 * time.Second
)

// lockBackends connects the optional lock backends. One that does not
// answer at start is logged and left out, so that the replica still serves
// the strategies it can (the others show available=false) rather than not
// starting at all; the database is the only hard requirement.
func lockBackends(ctx context.Context, cfg serveConfig, log *slog.Logger) (b lockstrategy.Backends, closeAll func()) {
	// go-redis logs dial failures with the standard logger, as plain text on
	// stderr; route them into our JSON log instead (process-wide setting).
	redis.SetLogger(redisLogger{log})
	var clients []*redis.Client
	closeAll = func() {
		for _, c := range clients {
			c.Close()
		}
	}
	if cfg.RedisAddr != "" {
		c := redis.NewClient(lockstrategy.RedisOptions(cfg.RedisAddr, redisPoolSize))
		if err := ping(ctx, c); err != nil {
			log.Warn("redis does not answer; the redis strategies are unavailable", "addr", cfg.RedisAddr, "err", err)
			c.Close()
		} else {
			b.Redis = c
			clients = append(clients, c)
		}
	}
	if addrs := config.List(cfg.RedlockAddrs); len(addrs) > 0 {
		var nodes []*redis.Client
		up := 0
		for _, a := range addrs {
			c := redis.NewClient(lockstrategy.RedisOptions(a, redlockPoolSize))
			if err := ping(ctx, c); err != nil {
				log.Warn("redlock master does not answer", "addr", a, "err", err)
			} else {
				up++
			}
			nodes = append(nodes, c)
		}
		// RedLock is built to survive a minority of masters down (and the
		// fault buttons stop one on purpose), so a minority down still counts
		// as available; without a quorum it cannot lock at all.
		if up > len(addrs)/2 {
			b.Redlock = nodes
			clients = append(clients, nodes...)
		} else {
			log.Warn("no quorum of redlock masters answers; redlock is unavailable", "up", up, "of", len(addrs))
			for _, c := range nodes {
				c.Close()
			}
		}
	}
	if servers := config.List(cfg.ZKServers); len(servers) > 0 {
		if anyReachable(ctx, servers) {
			b.ZKServers = servers
		} else {
			log.Warn("no zookeeper server answers; the zookeeper strategy is unavailable", "servers", servers)
		}
	}
	return b, closeAll
}

// ping checks that a Redis answers. A plain TCP dial first: for a server
// that is down, go-redis would retry its dial several times per command.
func ping(ctx context.Context, c *redis.Client) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := dial(ctx, c.Options().Addr); err != nil {
		return err
	}
	return c.Ping(ctx).Err()
}

func dial(ctx context.Context, addr string) error {
	d := net.Dialer{Timeout: probeTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// anyReachable dials the servers until one accepts a TCP connection; the
// zookeeper strategy opens its own session, this only decides availability.
func anyReachable(ctx context.Context, servers []string) bool {
	for _, s := range servers {
		if dial(ctx, s) == nil {
			return true
		}
	}
	return false
}

// redisLogger adapts go-redis's internal logging to slog.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}
