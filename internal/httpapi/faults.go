package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/lockstrategy/dblock"
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
	api.GET("/faults/redis-stats", f.redisStats)
	api.GET("/faults/zk-stats", f.zkStats)
	api.GET("/faults/lock-row", f.lockRow)
	api.POST("/faults", s.requireFaultAdmin, f.inject)
}

// list is GET /api/faults: the table as this replica offers it (the
// dashboard's Faults page is built from it), whether faults run here, and
// the state of the faults that last.
func (f *faultsAPI) list(c *gin.Context) {
	kinds := faults.Kinds()
	for i, k := range kinds {
		kinds[i] = k.On(f.svc)
	}
	zkDown, zkErr := f.svc.ZKServersDown()
	body := gin.H{"enabled": f.svc.Enabled(), "kinds": kinds, "chaos_kinds": faults.ChaosKinds(),
		"redis_nodes": nonNil(f.svc.RedisNodes()), "paused_holders": f.svc.PausedHolders(),
		"zk_servers_down": zkDown, "zk_restart_error": zkErr,
		"db_cut_ms_left": f.svc.DBCutLeft().Milliseconds(), "getset": f.svc.GetSetGaps(),
		"replies_dropped": f.svc.RepliesDropped()}
	if f.s.replicaID != "" {
		body["replica"] = f.s.replicaID
	}
	c.JSON(http.StatusOK, body)
}

// redisStats is GET /api/faults/redis-stats?node=redis: a Redis node's
// command counts and CPU seconds (faults.RedisStats), where faults run.
func (f *faultsAPI) redisStats(c *gin.Context) {
	node := c.Query("node")
	if node == "" {
		wire.WriteError(c, f.s.log, wire.BadField("node", "node must name a Redis node: %s", strings.Join(f.svc.RedisNodes(), ", ")))
		return
	}
	st, err := f.svc.ReadRedisStats(c.Request.Context(), node)
	if errors.Is(err, faults.ErrUnknownNode) {
		err = wire.BadField("node", "unknown node %q: this replica has %s", clip.Input(node), strings.Join(f.svc.RedisNodes(), ", "))
	}
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	c.JSON(http.StatusOK, st)
}

// zkStats is GET /api/faults/zk-stats: what this replica's zookeeper
// strategy has sent its server, by request type, and the watch events that
// woke its waiters (faults.ZKStats), where faults run.
func (f *faultsAPI) zkStats(c *gin.Context) {
	st, err := f.svc.ReadZKStats(c.Request.Context())
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	c.JSON(http.StatusOK, st)
}

// lockRow is GET /api/faults/lock-row?sale_id=: the sale's lock_table row
// (db-lock-table, db-lock-table-plain: owner, holds, time left, or none),
// where faults run.
func (f *faultsAPI) lockRow(c *gin.Context) {
	raw := c.Query("sale_id")
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || id == 0 {
		wire.WriteError(c, f.s.log, wire.BadField("sale_id", "sale_id must be a sale id (a decimal integer from 1), not %q", clip.Input(raw)))
		return
	}
	row, err := f.readLockRow(c.Request.Context(), id)
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	c.JSON(http.StatusOK, row)
}

// readLockRow reads sale id's row in lock_table, the lock of db-lock-table
// and db-lock-table-plain: its owner, hold count and time left, or none.
// Only where faults run: the database lessons read it to see a row counted,
// left by a crashed holder, or deleted under a live one.
func (f *faultsAPI) readLockRow(ctx context.Context, saleID uint64) (dblock.Row, error) {
	if !f.svc.Enabled() {
		return dblock.Row{}, faults.ErrDisabled
	}
	db, err := f.s.store.DB().DB()
	if err != nil {
		return dblock.Row{}, err
	}
	return dblock.ReadRow(ctx, db, f.s.orders.LockKey(saleID))
}

// faultRequest is the body of POST /api/faults: the kind, the replica to
// run it on, and every parameter the table knows (nil when absent).
type faultRequest struct {
	Kind    *string
	Replica *string
	Params  faults.Slots
}

// decodeFault reads the body into a new request.
func decodeFault(body io.Reader) (*faultRequest, error) {
	r := &faultRequest{Params: faults.NewSlots()}
	members := map[string]any{"kind": &r.Kind, "replica": &r.Replica}
	for name, slot := range r.Params {
		members[name] = slot
	}
	return r, wire.DecodeObject(body, members)
}

// MarshalJSON is the body forwarded to another replica: the kind and the
// parameters given, without the replica (the target runs it itself).
func (r *faultRequest) MarshalJSON() ([]byte, error) {
	out := r.Params.Values()
	if r.Kind != nil {
		out["kind"] = *r.Kind
	}
	return json.Marshal(out)
}

// inject decodes {"kind": ..., params, "replica"?} and runs the fault, here
// or, when replica names another live replica, there; 202 once the fault is
// in place (a pause waits for the next section, a slow_db hold runs on, a
// stop or kill comes just after the answer).
func (f *faultsAPI) inject(c *gin.Context) {
	if !f.svc.Enabled() {
		wire.WriteError(c, f.s.log, faults.ErrDisabled)
		return
	}
	r, err := decodeFault(c.Request.Body)
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	if r.Replica != nil {
		if *r.Replica == "" {
			wire.WriteError(c, f.s.log, wire.BadField("replica", "replica must be a replica id (GET /api/replicas)"))
			return
		}
		if *r.Replica != f.s.replicaID {
			f.forward(c, *r.Replica, r)
			return
		}
	}
	body, err := f.run(c, r)
	var pe *faults.ParamError
	if errors.As(err, &pe) {
		err = wire.BadField(pe.Param, "%s", pe.Message)
	}
	if err != nil {
		wire.WriteError(c, f.s.log, err)
		return
	}
	body["kind"] = *r.Kind
	if f.s.replicaID != "" {
		body["replica"] = f.s.replicaID
	}
	c.JSON(http.StatusAccepted, body)
}

// run finds the kind in the table, validates its parameters and injects it
// here; the map is the 202 body, describing what was done.
func (f *faultsAPI) run(c *gin.Context, r *faultRequest) (gin.H, error) {
	names := strings.Join(faults.Names(), ", ")
	if r.Kind == nil {
		return nil, wire.BadField("kind", "kind is required: one of %s", names)
	}
	kind, ok := faults.Find(*r.Kind)
	if !ok {
		return nil, wire.BadField("kind", "unknown kind %q: one of %s", clip.Input(*r.Kind), names)
	}
	args, err := kind.Parse(f.svc, r.Params.Values())
	if err != nil {
		return nil, err
	}
	res, err := f.svc.Inject(c.Request.Context(), kind, args)
	return gin.H(res), err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errReplicaNotFound is the 404 of a replica that is not a live shop.
func errReplicaNotFound(id string) *wire.Error {
	return &wire.Error{Status: http.StatusNotFound, Body: wire.Body{Error: "replica_not_found",
		Message: fmt.Sprintf("no live shop replica %q (GET /api/replicas lists them)", clip.Input(id)), Field: "replica"}}
}
