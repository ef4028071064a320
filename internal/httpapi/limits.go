package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// bound is one input's limits. Min and Default are pointers because 0 is a
// real value for both (work_ms 0 is allowed and the default); a member left
// out has no such limit.
type bound struct {
	Min *float64 `json:"min,omitempty"`
	// MinExclusive says Min itself is refused (a rate must be above 0).
	MinExclusive bool     `json:"min_exclusive,omitempty"`
	Max          float64  `json:"max,omitempty"`
	MaxChars     int      `json:"max_chars,omitempty"`
	Default      *float64 `json:"default,omitempty"`
}

// limitsView is GET /api/limits: the bounds the API enforces on the inputs
// of the dashboard's forms, so that the page reads them instead of copying
// them.
type limitsView struct {
	Sale   map[string]bound `json:"sale"`
	Run    map[string]bound `json:"run"`
	Faults map[string]bound `json:"faults"`
}

func num(v float64) *float64 { return &v }

// inputLimits builds the answer from the constants the validation uses.
func inputLimits() limitsView {
	return limitsView{
		Sale: map[string]bound{
			"stock":          {Min: num(1), Max: sale.MaxStock},
			"work_ms":        {Min: num(0), Max: sale.MaxWorkMS, Default: num(0)},
			"ttl_ms":         {Min: num(0), Max: sale.MaxTTLMS, Default: num(sale.DefaultTTLMS)},
			"per_user_limit": {Min: num(0), Max: sale.MaxPerUserLimit, Default: num(sale.DefaultPerUserLimit)},
			"name":           {MaxChars: sale.MaxNameLen},
			// The flash sale's guards.
			"opens_in_ms":     {Min: num(0), Max: sale.MaxOpensInMS, Default: num(0)},
			"rate_limit_user": {Min: num(0), Max: sale.MaxRateLimit, Default: num(0)},
			"rate_limit_ip":   {Min: num(0), Max: sale.MaxRateLimit, Default: num(0)},
			// 0 (no reservation) or MinPayWithinMS..MaxPayWithinMS.
			"pay_within_ms": {Min: num(0), Max: sale.MaxPayWithinMS, Default: num(0)},
			// With combine: true only (a strategy that takes a lock, sync).
			"combine_max_batch":   {Min: num(1), Max: sale.MaxCombineBatch, Default: num(sale.DefaultCombineBatch)},
			"combine_max_wait_us": {Min: num(0), Max: sale.MaxCombineWaitUS, Default: num(sale.DefaultCombineWaitUS)},
			// Above 1 only for a strategy that splits the stock, sync.
			"stock_shards": {Min: num(1), Max: inventory.MaxStockShards, Default: num(1)},
		},
		Run: map[string]bound{
			"buyers":      {Min: num(1), Max: runs.MaxBuyers},
			"concurrency": {Min: num(1), Max: runs.MaxConcurrency, Default: num(runs.DefaultConcurrency)},
			"rate":        {Min: num(0), MinExclusive: true, Max: runs.MaxRate},
			"replicas":    {Min: num(0), Max: runs.MaxReplicas, Default: num(0)},
		},
		Faults: map[string]bound{"duration_ms": faultDuration()},
	}
}

// faultDuration is the bounds of every duration parameter of the fault
// table (GET /api/faults lists them per kind, too).
func faultDuration() bound {
	lo, hi := faults.DurationBounds()
	return bound{Min: num(float64(lo)), Max: float64(hi)}
}

// limits is GET /api/limits: public and read-only, like the strategies.
func (s *Server) limits(c *gin.Context) { c.JSON(http.StatusOK, inputLimits()) }
