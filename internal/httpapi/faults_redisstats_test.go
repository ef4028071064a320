package httpapi

import (
	"net/http"
	"testing"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// GET /api/faults/redis-stats reads a node's counters where faults run: the
// node is required and must be one of this replica's; off, 403.
func TestFaultsRedisStats(t *testing.T) {
	e := newEnv(t, withFaultsRedis(testenv.PrivateRedis(t, 1)[0]))
	wantError(t, e.get("/api/faults/redis-stats"), http.StatusBadRequest, "invalid_field", "node")
	wantError(t, e.get("/api/faults/redis-stats?node=redlock-99"), http.StatusBadRequest, "invalid_field", "node")
	var st struct {
		Node     string           `json:"node"`
		Commands int64            `json:"commands"`
		ByName   map[string]int64 `json:"by_name"`
		// Present, not positive: a fresh Redis may have used less user CPU
		// than the kernel counts (CI read 0 next to 0.008 s of system CPU).
		CPUUser *float64 `json:"used_cpu_user"`
		CPUSys  *float64 `json:"used_cpu_sys"`
	}
	e.get("/api/faults/redis-stats?node=redis") // an INFO counts from the next one on
	rec := e.get("/api/faults/redis-stats?node=redis")
	mustJSON(t, rec, &st)
	if rec.Code != http.StatusOK || st.Node != "redis" || st.Commands <= 0 || st.ByName["info"] <= 0 || st.CPUUser == nil || st.CPUSys == nil {
		t.Errorf("redis-stats: %d %s", rec.Code, rec.Body)
	}
	t.Setenv(config.EnvFaults, "")
	wantError(t, newEnv(t).get("/api/faults/redis-stats?node=redis"), http.StatusForbidden, "faults_disabled", "")
}
