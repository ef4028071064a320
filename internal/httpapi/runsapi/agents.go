package runsapi

import (
	"fmt"
	"math"
	"net/http"
	"strings"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/runwire"
)

// agentHeartbeat is POST /api/agents/heartbeat {"agent_id", "pid", "gone"}:
// a load-test agent has no database of its own, so it announces itself
// through a shop replica, which writes its discovery row. "gone": true is
// the graceful stop (the row goes at once instead of after the expiry).
func (s *server) agentHeartbeat(c *gin.Context) {
	var pid *int64
	var gone *bool
	agent, ok := s.agentBody(c, map[string]any{"pid": &pid, "gone": &gone})
	if !ok {
		return
	}
	m := discovery.Member{ID: agent, Kind: discovery.KindAgent}
	if pid != nil {
		if *pid < 0 || *pid > math.MaxInt32 {
			wire.WriteError(c, s.log, wire.BadField("pid", "pid must be a process id"))
			return
		}
		m.PID = int(*pid)
	}
	ctx := c.Request.Context()
	var err error
	if gone != nil && *gone {
		err = discovery.Remove(ctx, s.db, m)
	} else {
		err = discovery.Beat(ctx, s.db, m)
	}
	if err != nil {
		wire.WriteError(c, s.log, fmt.Errorf("%w: %w", wire.ErrDBUnavailable, err))
		return
	}
	c.Status(http.StatusNoContent)
}

// claimShare is POST /api/agents/claim {"agent_id"}: 200 with a share to
// execute, or 204 when there is nothing to do.
func (s *server) claimShare(c *gin.Context) {
	id, ok := s.agentBody(c, map[string]any{})
	if !ok {
		return
	}
	a, ok, err := s.runs.Claim(c.Request.Context(), id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	if !ok {
		c.Status(http.StatusNoContent)
		return
	}
	c.JSON(http.StatusOK, a)
}

// reportShare is POST /api/runs/:id/steps/:step/shares/:share/report: an
// agent's cumulative figures for its share (sent every second, and once more
// with done true at the end).
func (s *server) reportShare(c *gin.Context) {
	var r runwire.Report
	var ok bool
	r.AgentID, ok = s.agentBody(c, map[string]any{
		"requests": &r.Requests, "orders": &r.Orders, "accepted": &r.Accepted, "sold_out": &r.SoldOut,
		"errors": &r.Errors, "elapsed_ms": &r.ElapsedMS, "histogram": &r.Histogram, "done": &r.Done, "layers": &r.Layers,
	})
	if !ok {
		return
	}
	for _, p := range []struct {
		name string
		into *int
	}{{"step", &r.Step}, {"share", &r.Share}} {
		n, err := wire.PathInt(c, p.name)
		if err != nil || n > math.MaxInt32 {
			wire.WriteError(c, s.log, wire.BadField(p.name, "%s must be a small non-negative integer", p.name))
			return
		}
		*p.into = int(n)
	}
	id, err := wire.PathInt(c, "id")
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	r.RunID = uint64(id)
	ack, err := s.runs.Report(c.Request.Context(), r)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, ack)
}

// agentBody decodes a body of an agent: "agent_id" and members (member
// name -> pointer to decode into), and checks the agent's id; on a bad
// body or id it has answered.
func (s *server) agentBody(c *gin.Context, members map[string]any) (string, bool) {
	var id *string
	members["agent_id"] = &id
	if err := wire.DecodeObject(c.Request.Body, members); err != nil {
		wire.WriteError(c, s.log, err)
		return "", false
	}
	agent, err := agentID(id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return "", false
	}
	return agent, true
}

// MaxAgentIDLen bounds an agent id in bytes: replicas.id,
// run_shares.agent_id and lesson_runs.agent_id are VARCHAR(64), and a
// character is at least a byte.
const MaxAgentIDLen = 64

// agentID checks an agent's id before anything is written or looked up
// with it: 1 to MaxAgentIDLen bytes, no control characters (an id is
// logged and shown on the dashboard).
func agentID(id *string) (string, error) {
	if id == nil || *id == "" {
		return "", wire.BadField("agent_id", "agent_id is required (1-%d bytes)", MaxAgentIDLen)
	}
	if len(*id) > MaxAgentIDLen {
		return "", wire.BadField("agent_id", "agent_id must be at most %d bytes, not %d", MaxAgentIDLen, len(*id))
	}
	if strings.IndexFunc(*id, unicode.IsControl) >= 0 {
		return "", wire.BadField("agent_id", "agent_id must not contain control characters")
	}
	return *id, nil
}
