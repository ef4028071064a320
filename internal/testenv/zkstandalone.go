package testenv

import (
	"os"

	"github.com/seckill-lab/seckill/internal/config"
)

// The tests run on the standalone ZooKeeper (config.DefaultZKStandalone),
// not on the ensemble a replica uses by default: tests in other packages
// kill the ensemble's servers (kill_zk_server, under its kill lock), and a
// test of the zookeeper strategy must not see a leader election it did not
// cause. Set before any test runs, so the shops and children the tests
// start (they inherit the environment) use it too; SECKILL_ZK_SERVERS, when
// set, wins, and the tests that want the ensemble ask for it (ZKEnsemble)
// and pass its servers explicitly.
func init() {
	if os.Getenv(config.EnvZKServers) == "" {
		os.Setenv(config.EnvZKServers, config.DefaultZKStandalone)
	}
}
