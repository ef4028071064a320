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

// probeEvery is how often the backends are probed: how soon a replica
// notices one went away or came back.
const probeEvery = time.Second

// lockBackends connects the configured lock backends, whether or not they
// answer now: go-redis and the ZooKeeper client reconnect by themselves, so
// a backend that is down at start (or later) serves as soon as it is back.
// Which answer now is Backends.Health, kept current by monitorBackends; a
// strategy whose backend is down is unavailable meanwhile (503), not for
// the replica's lifetime.
func lockBackends(cfg serveConfig, log *slog.Logger) (b lockstrategy.Backends, closeAll func()) {
	// go-redis logs dial failures with the standard logger, as plain text on
	// stderr; route them into our JSON log instead (process-wide setting).
	redis.SetLogger(redisLogger{log})
	var clients []*redis.Client
	closeAll = func() {
		for _, c := range clients {
			c.Close()
		}
	}
	b.Health = lockstrategy.NewHealth()
	if cfg.RedisAddr != "" {
		b.Redis = redis.NewClient(lockstrategy.RedisOptions(cfg.RedisAddr, redisPoolSize))
		clients = append(clients, b.Redis)
	}
	for _, a := range config.List(cfg.RedlockAddrs) {
		c := redis.NewClient(lockstrategy.RedlockOptions(a, redlockPoolSize))
		b.Redlock = append(b.Redlock, c)
		clients = append(clients, c)
	}
	b.ZKServers = config.List(cfg.ZKServers)
	b.Etcd = config.List(cfg.EtcdEndpoints)
	if sentinels := config.List(cfg.SentinelAddrs); len(sentinels) > 0 && cfg.SentinelMaster != "" {
		b.Sentinel = redis.NewFailoverClient(lockstrategy.SentinelOptions(cfg.SentinelMaster, sentinels, redisPoolSize))
		clients = append(clients, b.Sentinel)
	}
	return b, closeAll
}

// monitorBackends probes every configured backend every probeEvery until
// ctx ends (probeAll once first, before serving), recording each verdict in
// b.Health and logging each change of state once.
func monitorBackends(ctx context.Context, b lockstrategy.Backends, log *slog.Logger) {
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			probeAll(ctx, b, log)
		}
	}
}

func probeAll(ctx context.Context, b lockstrategy.Backends, log *slog.Logger) {
	record := func(n lockstrategy.Need, err error, detail string) {
		if b.Health.Set(n, err, detail) {
			if err != nil {
				log.Warn("backend down: its strategies are unavailable until it answers", "backend", n, "err", err)
			} else {
				log.Info("backend up", "backend", n, "detail", detail)
			}
		}
	}
	if b.DB != nil {
		sqlDB, err := b.DB.DB()
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			err = sqlDB.PingContext(pctx)
			cancel()
		}
		record(lockstrategy.NeedDB, err, "")
	}
	if b.Redis != nil {
		record(lockstrategy.NeedRedis, ping(ctx, b.Redis), "")
	}
	if len(b.Redlock) > 0 {
		// RedLock is built to survive a minority of masters down (and the
		// fault buttons stop one on purpose): it is up while a quorum is.
		up, lastErr := 0, error(nil)
		for _, c := range b.Redlock {
			if err := ping(ctx, c); err != nil {
				lastErr = err
			} else {
				up++
			}
		}
		var err error
		if up <= len(b.Redlock)/2 {
			err = fmt.Errorf("no quorum: %d of %d masters answer (%w)", up, len(b.Redlock), lastErr)
		}
		record(lockstrategy.NeedRedlock, err, fmt.Sprintf("%d of %d masters answer", up, len(b.Redlock)))
	}
	if len(b.ZKServers) > 0 {
		var err error
		if !anyReachable(ctx, b.ZKServers) {
			err = fmt.Errorf("no server of %v accepts a connection", b.ZKServers)
		}
		record(lockstrategy.NeedZooKeeper, err, "")
	}
	if b.Sentinel != nil {
		// Through the Sentinels: up while they name a master that answers
		// (during a failover, until the replica is promoted, it is down).
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		record(lockstrategy.NeedSentinel, b.Sentinel.Ping(pctx).Err(), "")
		cancel()
	}
	if len(b.Etcd) > 0 {
		var err error
		if !anyReachable(ctx, b.Etcd) {
			err = fmt.Errorf("no endpoint of %v accepts a connection", b.Etcd)
		}
		record(lockstrategy.NeedEtcd, err, "")
	}
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
