package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/faults"
)

// faultsAPI serves /api/faults over the faults.Service cmd/shop built.
type faultsAPI struct {
	s   *Server
	svc *faults.Service
}

// faultRoutes registers GET /api/faults (the kinds, and whether they run
// here) and POST /api/faults (inject one, here or on another replica).
// Faults run only when the service is enabled (SECKILL_FAULTS=on, read by
// cmd/shop) and, when an admin token is set, only with it: cmd/shop insists
// on a token beyond loopback, so a public shop can never be paused by a
// stranger.
func (s *Server) faultRoutes(api *gin.RouterGroup) {
	f := &faultsAPI{s: s, svc: s.faults}
	api.GET("/faults", f.list)
	api.POST("/faults", s.requireFaultAdmin, f.inject)
}

func (f *faultsAPI) list(c *gin.Context) {
	zkDown, zkErr := f.svc.ZKServersDown()
	body := gin.H{"enabled": f.svc.Enabled(), "kinds": faults.Kinds(), "redis_nodes": nonNil(f.svc.RedisNodes()),
		"paused_holders": f.svc.PausedHolders(), "zk_servers_down": zkDown, "zk_restart_error": zkErr,
		"db_cut_ms_left": f.svc.DBCutLeft().Milliseconds(), "getset": f.svc.GetSetGaps()}
	if f.s.replicaID != "" {
		body["replica"] = f.s.replicaID
	}
	c.JSON(http.StatusOK, body)
}

// faultRequest is the body of POST /api/faults: every member any kind
// takes, nil when absent.
type faultRequest struct {
	Kind    *string `json:"kind,omitempty"`
	MS      *int64  `json:"ms,omitempty"`
	SaleID  *uint64 `json:"sale_id,omitempty"`
	Node    *string `json:"node,omitempty"`
	Point   *string `json:"point,omitempty"`
	Replica *string `json:"replica,omitempty"`
}

// only rejects the parameters kind does not take, naming the first one.
func (r *faultRequest) only(kind string, takes ...string) error {
	for _, p := range []struct {
		name string
		set  bool
	}{{"ms", r.MS != nil}, {"sale_id", r.SaleID != nil}, {"node", r.Node != nil}, {"point", r.Point != nil}} {
		if p.set && !slices.Contains(takes, p.name) {
			if len(takes) == 0 {
				return badField(p.name, "%s takes no parameters", kind)
			}
			return badField(p.name, "%s takes no %s, only %s", kind, p.name, strings.Join(takes, ", "))
		}
	}
	return nil
}

// inject decodes {"kind": ..., params, "replica"?} and runs the fault, here
// or, when replica names another live replica, there; 202 once the fault is
// in place (a pause waits for the next section, a slow_db hold runs on, a
// stop or kill comes just after the answer).
func (f *faultsAPI) inject(c *gin.Context) {
	if !f.svc.Enabled() {
		writeError(c, f.s.log, faults.ErrDisabled)
		return
	}
	var r faultRequest
	if err := decodeObject(c.Request.Body, map[string]any{"kind": &r.Kind, "ms": &r.MS, "sale_id": &r.SaleID,
		"node": &r.Node, "point": &r.Point, "replica": &r.Replica}); err != nil {
		writeError(c, f.s.log, err)
		return
	}
	if r.Replica != nil {
		if *r.Replica == "" {
			writeError(c, f.s.log, badField("replica", "replica must be a replica id (GET /api/replicas)"))
			return
		}
		if *r.Replica != f.s.replicaID {
			f.forward(c, *r.Replica, r)
			return
		}
	}
	if r.Kind == nil {
		writeError(c, f.s.log, badField("kind", "kind is required: one of %s", kindNames()))
		return
	}
	body, err := f.run(c, *r.Kind, &r)
	if err != nil {
		writeError(c, f.s.log, err)
		return
	}
	body["kind"] = *r.Kind
	if f.s.replicaID != "" {
		body["replica"] = f.s.replicaID
	}
	c.JSON(http.StatusAccepted, body)
}

// run validates kind's parameters and injects it here; the map is the 202
// body, describing what was done.
func (f *faultsAPI) run(c *gin.Context, kind string, r *faultRequest) (gin.H, error) {
	ctx := c.Request.Context()
	switch kind {
	case faults.KindPauseHolder:
		d, err := r.duration(kind)
		if err == nil {
			err = f.svc.PauseHolder(d)
		}
		return gin.H{"ms": d.Milliseconds()}, err
	case faults.KindNestedLock:
		d, err := r.duration(kind)
		if err == nil {
			err = f.svc.NestedLock(d)
		}
		return gin.H{"ms": d.Milliseconds()}, err
	case faults.KindDropReply:
		if err := r.only(kind, "sale_id"); err != nil {
			return nil, err
		}
		if r.SaleID == nil || *r.SaleID == 0 {
			return nil, badField("sale_id", "sale_id (a positive integer) is required")
		}
		if err := f.svc.DropReply(*r.SaleID); err != nil {
			return nil, err
		}
		return gin.H{"armed": true, "sale_id": *r.SaleID}, nil
	case faults.KindSlowWork:
		d, err := r.duration(kind)
		if err == nil {
			err = f.svc.SlowWork(d)
		}
		return gin.H{"ms": d.Milliseconds()}, err
	case faults.KindGetSetReleaseGap, faults.KindGetSetTakeoverGap:
		d, err := r.duration(kind)
		if err == nil {
			arm := f.svc.GetSetReleaseGap
			if kind == faults.KindGetSetTakeoverGap {
				arm = f.svc.GetSetTakeoverGap
			}
			err = arm(d)
		}
		return gin.H{"ms": d.Milliseconds()}, err
	case faults.KindClockSkew:
		d, err := r.duration(kind)
		if err == nil {
			err = f.svc.ClockSkew(d)
		}
		return gin.H{"ms": d.Milliseconds(), "for_ms": faults.ClockSkewFor.Milliseconds()}, err
	case faults.KindExpireZKSession:
		if err := r.only(kind); err != nil {
			return nil, err
		}
		id, err := f.svc.ExpireZKSession(ctx)
		return gin.H{"session_id": id}, err
	case faults.KindSlowDB:
		if err := r.only(kind, "ms", "sale_id"); err != nil {
			return nil, err
		}
		d, err := duration(r.MS)
		if err == nil && (r.SaleID == nil || *r.SaleID == 0) {
			err = badField("sale_id", "sale_id (a positive integer) is required")
		}
		if err == nil {
			err = f.svc.SlowDB(ctx, *r.SaleID, d)
		}
		if err != nil {
			return nil, err
		}
		return gin.H{"ms": d.Milliseconds(), "sale_id": *r.SaleID}, nil
	case faults.KindCrashAfterSetNX:
		if err := r.only(kind); err != nil {
			return nil, err
		}
		if err := f.svc.CrashAfterSetNX(); err != nil {
			return nil, err
		}
		return gin.H{"armed": true, "strategies": faults.CrashStrategies()}, nil
	case faults.KindStopProcess, faults.KindKillProcess:
		d, err := r.duration(kind)
		if err != nil {
			return nil, err
		}
		signal, do := "SIGSTOP then SIGCONT", f.svc.StopProcess
		if kind == faults.KindKillProcess {
			signal, do = "SIGKILL", f.svc.KillProcess
		}
		pid, err := do(d)
		return gin.H{"ms": d.Milliseconds(), "pid": pid, "signal": signal}, err
	case faults.KindRestartRedis:
		return f.restartRedis(c, kind, r)
	case faults.KindHoldReplication:
		d, err := r.duration(kind)
		if err != nil {
			return nil, err
		}
		master, err := f.svc.HoldReplication(ctx, d)
		return gin.H{"ms": d.Milliseconds(), "master": master}, err
	case faults.KindKillRedisMaster:
		d, err := r.duration(kind)
		if err != nil {
			return nil, err
		}
		fo, err := f.svc.KillRedisMaster(ctx, d)
		return gin.H{"ms": d.Milliseconds(), "old_master": fo.OldMaster, "new_master": fo.NewMaster}, err
	case faults.KindCutDB:
		d, err := r.duration(kind)
		if err == nil {
			err = f.svc.CutDB(d)
		}
		return gin.H{"ms": d.Milliseconds()}, err
	case faults.KindKillZKServer:
		d, err := r.duration(kind)
		if err != nil {
			return nil, err
		}
		k, err := f.svc.KillZKServer(ctx, d)
		return gin.H{"ms": d.Milliseconds(), "killed": k.Killed, "mode": k.Mode, "session_was_on": k.SessionWasOn,
			"session_on": k.SessionOn}, err
	case faults.KindKillConsumer:
		if err := r.only(kind, "point"); err != nil {
			return nil, err
		}
		points := faults.KillPoints()
		if r.Point == nil || !slices.Contains(points, *r.Point) {
			return nil, badField("point", "point is required: one of %s", strings.Join(points, ", "))
		}
		if err := f.svc.KillConsumer(*r.Point); err != nil {
			return nil, err
		}
		return gin.H{"armed": true, "point": *r.Point}, nil
	default:
		return nil, badField("kind", "unknown kind %q: one of %s", clip.Input(kind), kindNames())
	}
}

// restartRedis runs restart_redis; it answers once the node is back.
func (f *faultsAPI) restartRedis(c *gin.Context, kind string, r *faultRequest) (gin.H, error) {
	if err := r.only(kind, "node"); err != nil {
		return nil, err
	}
	nodes := strings.Join(f.svc.RedisNodes(), ", ")
	if r.Node == nil {
		return nil, badField("node", "node is required: one of %s", nodes)
	}
	res, err := f.svc.RestartRedis(c.Request.Context(), *r.Node)
	switch {
	case errors.Is(err, faults.ErrUnknownNode):
		return nil, badField("node", "unknown node %q: this replica has %s", clip.Input(*r.Node), nodes)
	case err != nil: // faults.ErrRedisRestart among them: the map renders it
		return nil, err
	}
	return gin.H{"node": res.Node, "addr": res.Addr, "run_id_before": res.RunIDBefore, "run_id_after": res.RunIDAfter}, nil
}

// duration validates ms for a kind that takes only ms.
func (r *faultRequest) duration(kind string) (time.Duration, error) {
	if err := r.only(kind, "ms"); err != nil {
		return 0, err
	}
	return duration(r.MS)
}

// duration validates ms: required, 1..MaxDuration.
func duration(ms *int64) (time.Duration, error) {
	max := faults.MaxDuration.Milliseconds()
	if ms == nil || *ms < 1 || *ms > max {
		return 0, badField("ms", "ms is required, from 1 to %d", max)
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

func kindNames() string {
	var names []string
	for _, k := range faults.Kinds() {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errReplicaNotFound is the 404 of a replica that is not a live shop.
func errReplicaNotFound(id string) *apiError {
	return &apiError{status: http.StatusNotFound, body: errorBody{Error: "replica_not_found",
		Message: fmt.Sprintf("no live shop replica %q (GET /api/replicas lists them)", clip.Input(id)), Field: "replica"}}
}
