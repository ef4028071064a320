package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// replicasTimeout bounds the discovery query: the dashboard polls this every
// second, and a stuck answer is worth less than a 503.
const replicasTimeout = 2 * time.Second

// replicaView is one entry of GET /api/replicas.
type replicaView struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // "shop" or "agent"
	URL  string `json:"url"`
	PID  int    `json:"pid"`
	// StartedAt and LastSeen are the database's clock (UTC), which every
	// replica shares; AgeMS is how long ago LastSeen was on that clock, so a
	// dashboard need not trust the browser's clock to say "gone 12 s ago".
	StartedAt time.Time `json:"started_at"`
	LastSeen  time.Time `json:"last_seen"`
	AgeMS     int64     `json:"age_ms"`
	// Alive: heartbeat within the expiry (5 s). Members gone within the last
	// minute are listed with alive=false so that a dashboard can show "gone".
	Alive bool `json:"alive"`
}

// replicas is GET /api/replicas: the shop replicas and load-test agents of
// this deployment, from their heartbeats in the shared database,
// shops first, by id. Any replica answers the same.
func (s *Server) replicas(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), replicasTimeout)
	defer cancel()
	members, err := discovery.Recent(ctx, s.store.DB())
	if err != nil {
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	out := make([]replicaView, 0, len(members)) // [] rather than null when empty
	for _, m := range members {
		out = append(out, replicaView{ID: m.ID, Kind: string(m.Kind), URL: m.URL, PID: m.PID,
			StartedAt: m.StartedAt, LastSeen: m.LastSeen, AgeMS: m.Age.Milliseconds(), Alive: m.Alive})
	}
	c.JSON(http.StatusOK, out)
}
