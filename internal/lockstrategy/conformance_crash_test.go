package lockstrategy_test

import "github.com/seckill-lab/seckill/internal/lockstrategy/redislock"

func init() {
	// redis-setnx-expire: the child dies between SETNX and EXPIRE, leaving a
	// key with no TTL, so the killed-holder check must find the lock stuck.
	crashHooks["redis-setnx-expire"] = func(crash func()) { redislock.CrashBetweenSetNXAndExpire = crash }
}
