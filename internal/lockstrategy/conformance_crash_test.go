package lockstrategy_test

import (
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

func init() {
	// redis-setnx-expire: the child dies between SETNX and EXPIRE, leaving a
	// key with no TTL, so the killed-holder check must find the lock stuck.
	crashHooks["redis-setnx-expire"] = func(b *lockstrategy.Backends, crash func()) {
		pts := &faultpoint.Points{CrashDie: crash}
		pts.ArmCrash()
		b.Faults = pts
	}
}
