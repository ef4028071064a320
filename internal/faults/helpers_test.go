package faults_test

import (
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// zooKeeperOf is Config.ZooKeeper over lockers, as cmd/shop builds it.
func zooKeeperOf(lockers *lockstrategy.Instances) func() (any, error) {
	return func() (any, error) { return lockers.Locker("zookeeper", lockstrategy.Options{}) }
}
