package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// healthTimeout bounds the /healthz database ping: a health check that
// hangs is as bad as one that fails.
const healthTimeout = time.Second

// healthz is GET /healthz: 200 only when the database answers, because a
// replica without its database cannot sell anything.
func (s *Server) healthz(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), healthTimeout)
	defer cancel()
	if err := s.ping(ctx); err != nil {
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	// Every backend's state too: the lock backends are optional (a replica
	// serves the strategies it can), so they do not make it unhealthy.
	c.JSON(http.StatusOK, gin.H{"status": "ok", "backends": s.lockers.Backends().AllStates()})
}

// strategyView is one entry of GET /api/strategies.
type strategyView struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Needs       []string `json:"needs"`
	Safe        bool     `json:"safe"`
	// Kind: lock (a critical section under the lock), lock-free (a safe
	// stock write, no lock) or reserve (units taken from a stock of its own).
	Kind string `json:"kind"`
	// Renews says the lease renews itself, so a sale may turn its watchdog off.
	Renews bool `json:"renews"`
	// Tokens says the lease carries a fencing token, so a sale may fence.
	Tokens bool `json:"tokens"`
	// SplitsStock says a sale may split its stock (stock_shards > 1).
	SplitsStock bool `json:"splits_stock"`
	// Expiry says what frees a dead holder's lock (ttl, session, connection,
	// none, ...): whether a stalled holder can outlive its lock.
	Expiry string `json:"expiry"`
	// Available says this replica has every backend the strategy needs, and
	// each answers now.
	Available bool `json:"available"`
	// Backends is the state of each backend it needs: up, down or not
	// configured.
	Backends map[string]string `json:"backends"`
}

// strategies is GET /api/strategies: every registered strategy, sorted.
func (s *Server) strategies(c *gin.Context) {
	backends := s.lockers.Backends()
	all := lockstrategy.All()
	out := make([]strategyView, 0, len(all))
	for _, st := range all {
		needs := make([]string, 0, len(st.Needs))
		states := map[string]string{}
		for _, n := range st.Needs {
			needs = append(needs, string(n))
			states[string(n)] = backends.State(n).State
		}
		out = append(out, strategyView{Name: st.Name, Description: st.Description, Needs: needs,
			Kind: string(st.Kind()), Safe: st.Safe, Renews: st.Renews, Tokens: st.Tokens, SplitsStock: st.SplitsStock, Expiry: string(st.Expiry), Available: st.Available(backends) == nil, Backends: states})
	}
	c.JSON(http.StatusOK, out)
}
