package testenv

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/zkensemble"
)

// ZKEnsemble is the three-server ZooKeeper ensemble (SECKILL_ZK_ENSEMBLE_SERVERS,
// `scripts/services.sh up --zk-ensemble`, which make test runs) with the
// folder of its pid files (SECKILL_SERVICES_DIR, else the repository's
// .run), once all three serve: a test in another package may have one
// down for a while (the tests that kill one hold its kill lock,
// Ensemble.Lock, until it serves again), so it waits up to two minutes.
func ZKEnsemble(t testing.TB) zkensemble.Ensemble {
	t.Helper()
	SkipInShort(t)
	dir, err := filepath.Abs(config.Get(config.EnvServicesDir, filepath.Join(RepoRoot(t), ".run")))
	if err != nil {
		t.Fatal(err)
	}
	e := zkensemble.Ensemble{
		Servers: config.List(config.Get(config.EnvZKEnsembleServers, config.DefaultZKEnsembleServers)),
		Dir:     dir, // absolute: a shop started from another folder reads it too
	}
	for _, s := range e.Servers {
		if err = reachable(s); err == nil {
			break
		}
	}
	if err != nil {
		Unavailable(t, "the ZooKeeper ensemble (scripts/services.sh up --zk-ensemble) at "+e.Servers[0]+"...", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := e.WaitWhole(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}
