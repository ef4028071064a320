// Package all registers every lock strategy; import it for its side effect,
// as a program imports its database/sql drivers.
package all

import (
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/consistenthash" // consistent-hash
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/dblock"         // db-* strategies
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/etcdlock"       // etcd
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/memlock"        // mutex
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/nolock"         // none
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/redislock"      // redis, redis-aggressive, redis-sentinel
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/redisnaive"     // redis-setnx-expire, redis-no-owner, redis-getset
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/redisson"       // redisson
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"     // redis-lua-stock
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/redlock"        // redlock
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/twolevel"       // redis-2level
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/zklock"         // zookeeper
)
