package httpapi

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// GET /api/limits answers, without a token, the very constants the
// validation of sales, runs and faults uses: the dashboard's forms take
// their bounds from it.
func TestLimits(t *testing.T) {
	e := newEnv(t, withToken("s3cret")) // public even when writes need a token
	rec := e.get("/api/limits")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/limits: %d %s", rec.Code, rec.Body)
	}
	var got map[string]map[string]map[string]any
	mustJSON(t, rec, &got)
	want := map[string]map[string]map[string]any{
		"sale": {
			"stock":               {"min": 1.0, "max": float64(sale.MaxStock)},
			"work_ms":             {"min": 0.0, "max": float64(sale.MaxWorkMS), "default": 0.0},
			"ttl_ms":              {"min": 0.0, "max": float64(sale.MaxTTLMS), "default": float64(sale.DefaultTTLMS)},
			"per_user_limit":      {"min": 0.0, "max": float64(sale.MaxPerUserLimit), "default": float64(sale.DefaultPerUserLimit)},
			"name":                {"max_chars": float64(sale.MaxNameLen)},
			"opens_in_ms":         {"min": 0.0, "max": float64(sale.MaxOpensInMS), "default": 0.0},
			"rate_limit_user":     {"min": 0.0, "max": float64(sale.MaxRateLimit), "default": 0.0},
			"rate_limit_ip":       {"min": 0.0, "max": float64(sale.MaxRateLimit), "default": 0.0},
			"pay_within_ms":       {"min": 0.0, "max": float64(sale.MaxPayWithinMS), "default": 0.0},
			"combine_max_batch":   {"min": 1.0, "max": float64(sale.MaxCombineBatch), "default": float64(sale.DefaultCombineBatch)},
			"combine_max_wait_us": {"min": 0.0, "max": float64(sale.MaxCombineWaitUS), "default": float64(sale.DefaultCombineWaitUS)},
			"stock_shards":        {"min": 1.0, "max": float64(inventory.MaxStockShards), "default": 1.0},
		},
		"run": {
			"buyers":      {"min": 1.0, "max": float64(runs.MaxBuyers)},
			"concurrency": {"min": 1.0, "max": float64(runs.MaxConcurrency), "default": float64(runs.DefaultConcurrency)},
			"rate":        {"min": 0.0, "min_exclusive": true, "max": float64(runs.MaxRate)},
			"replicas":    {"min": 0.0, "max": float64(runs.MaxReplicas), "default": 0.0},
		},
		"faults": {
			"duration_ms": {"min": 1.0, "max": float64(faults.MaxDuration.Milliseconds())},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GET /api/limits\n got %v\nwant %v", got, want)
	}
	wantError(t, e.post("/api/limits", `{}`), http.StatusMethodNotAllowed, "method_not_allowed", "")
}
