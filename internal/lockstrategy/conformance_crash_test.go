package lockstrategy_test

import "github.com/seckill-lab/seckill/internal/lockstrategy"

func init() {
	// redis-setnx-expire: the child dies between SETNX and EXPIRE, leaving a
	// key with no TTL, so the killed-holder check must find the lock stuck.
	crashHooks["redis-setnx-expire"] = func(b *lockstrategy.Backends, crash func()) {
		b.Crash = &lockstrategy.CrashHook{Die: crash}
		b.Crash.Arm()
	}
}
