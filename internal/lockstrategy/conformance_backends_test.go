package lockstrategy_test

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// childBackends connects a child process to the same services as the parent
// (no testing.T there: a failure is the child's exit code).
func childBackends(dsn string) (lockstrategy.Backends, func(), error) {
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: dsn, MaxOpenConns: 8})
	if err != nil {
		return lockstrategy.Backends{}, nil, err
	}
	b := lockstrategy.Backends{
		DB:               db,
		Redis:            redis.NewClient(&redis.Options{Addr: config.Get(config.EnvRedisAddr, config.DefaultRedisAddr)}),
		ZKServers:        config.List(config.Get(config.EnvZKServers, config.DefaultZKServers)),
		ZKSessionTimeout: zkSessionTimeout,
		Etcd:             config.List(config.Get(config.EnvEtcdEndpoints, config.DefaultEtcdEndpoints)),
		Sentinel: redis.NewFailoverClient(lockstrategy.SentinelOptions(config.Get(config.EnvSentinelMaster, config.DefaultSentinelMaster),
			config.List(config.Get(config.EnvSentinelAddrs, config.DefaultSentinelAddrs)), 64)),
	}
	for _, a := range config.List(config.Get(config.EnvRedlockAddrs, config.DefaultRedlockAddrs)) {
		b.Redlock = append(b.Redlock, redis.NewClient(&redis.Options{Addr: a}))
	}
	closeAll := func() {
		inventory.Close(db)
		b.Redis.Close()
		b.Sentinel.Close()
		for _, c := range b.Redlock {
			c.Close()
		}
	}
	return b, closeAll, nil
}
