package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// GET /api/faults/zk-stats counts what this replica's zookeeper strategy
// sent its server, where faults run: one lock and unlock are a create and a
// delete among them; off, 403.
func TestFaultsZKStats(t *testing.T) {
	faultsOn(t)
	db := testenv.DB(t, "httpapi")
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{DB: db, ZKServers: testenv.ZKServers(t)})
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "faults-zkstats"}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	e := &env{db: db, store: store, lockers: lockers, srv: newServer(Deps{Store: store, Orders: orders, Lockers: lockers})}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := lockers.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lease, err := l.Lock(ctx, "httpapi-faults-zkstats")
	if err != nil {
		t.Fatal(err)
	}
	if err := lease.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Requests map[string]int64 `json:"requests"`
		Wakeups  *int64           `json:"wakeups"`
	}
	rec := e.get("/api/faults/zk-stats")
	mustJSON(t, rec, &st)
	if rec.Code != http.StatusOK || st.Requests["create"] < 1 || st.Requests["delete"] < 1 || st.Wakeups == nil {
		t.Errorf("zk-stats: %d %s", rec.Code, rec.Body)
	}
	t.Setenv(config.EnvFaults, "")
	wantError(t, newEnv(t).get("/api/faults/zk-stats"), http.StatusForbidden, "faults_disabled", "")
}
