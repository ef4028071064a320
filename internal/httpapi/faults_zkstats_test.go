package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
)

// GET /api/faults/zk-stats counts what this replica's zookeeper strategy
// sent its server, where faults run: one lock and unlock are a create and a
// delete among them; off, 403.
func TestFaultsZKStats(t *testing.T) {
	e, l := zkFaultsEnv(t, "faults-zkstats")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
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
