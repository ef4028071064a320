package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/clip"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/reconcile"
)

// acceptedBody is a 202's body. A struct, not a gin.H: encoding/json sorts
// a map's keys on every answer, and the 202 is the async sale's hot path.
type acceptedBody struct {
	OrderTicket string     `json:"order_ticket"`
	SaleID      uint64     `json:"sale_id"`
	UserID      string     `json:"user_id"`
	State       string     `json:"state"`
	AcceptedAt  *time.Time `json:"accepted_at"`
	Poll        string     `json:"poll"`
}

// accepted answers a queued order: 202, its ticket, where to poll.
func accepted(c *gin.Context, o inventory.Order) {
	poll := "/api/orders/" + *o.OrderTicket
	c.Header("Location", poll)
	c.JSON(http.StatusAccepted, acceptedBody{OrderTicket: *o.OrderTicket, SaleID: o.SaleID, UserID: o.UserID,
		State: orderqueue.StatePending, AcceptedAt: o.AcceptedAt, Poll: poll})
}

// orderRef reads the :ref path parameter: an order id or an order ticket.
func orderRef(c *gin.Context) (string, error) {
	ref := c.Param("ref")
	for _, r := range ref {
		if r < '0' || r > '9' {
			if !orderqueue.ValidTicket(ref) {
				return "", wire.BadField("ref", "the order must be named by its numeric id or its order ticket (ot_...), not %q", clip.Input(ref))
			}
			return ref, nil
		}
	}
	if ref == "" || len(ref) > 20 {
		return "", wire.BadField("ref", "the order must be named by its numeric id or its order ticket (ot_...), not %q", clip.Input(ref))
	}
	return ref, nil
}

// getOrder is GET /api/orders/:ref: what became of an order ticket, or of
// an order named by its id with ?order_token= (or the admin token): see
// provenOrder. A confirmed order carries its order_token.
func (s *Server) getOrder(c *gin.Context) {
	ref, err := orderRef(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	ctx := c.Request.Context()
	byTicket := orderqueue.ValidTicket(ref)
	if q := s.orders.Queue(); q != nil && byTicket {
		st, found, err := q.Lookup(ctx, s.store.DB(), s.orders.LockKey, ref)
		switch {
		case err != nil:
			wire.WriteError(c, s.log, err)
		case !found:
			wire.WriteError(c, s.log, order.ErrOrderNotFound)
		default:
			c.JSON(http.StatusOK, s.viewTicket(st))
		}
		return
	}
	var o inventory.Order
	if byTicket {
		o, err = s.orders.Resolve(ctx, ref) // no queue here: the database's orders only
	} else {
		o, err = s.provenOrder(ctx, ref, c.Query("order_token"), s.adminPresented(c))
	}
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, s.viewTicket(orderqueue.TicketState{Ticket: wire.Deref(o.OrderTicket), SaleID: o.SaleID,
		UserID: o.UserID, State: orderqueue.StateConfirmed, Order: &o}))
}

// payOrder is POST /api/orders/:ref/pay {"order_token", "user_id"}: the
// holder of a reservation pays it, named by its ticket, or by its id with
// its order_token (payProof). The holder's own order write: no admin
// token, and the admin token pays nothing.
func (s *Server) payOrder(c *gin.Context) {
	ref, err := orderRef(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	p, err := paymentBody(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	byTicket := orderqueue.ValidTicket(ref)
	if !byTicket && p.token == "" {
		wire.WriteError(c, s.log, guard.ErrOrderTokenRequired)
		return
	}
	o, err := s.orders.PayProven(c.Request.Context(), ref, s.payProof(ref, p))
	if errors.Is(err, order.ErrOrderNotFound) && !byTicket {
		err = guard.ErrBadOrderToken // as for a read: which ids exist is nobody's business
	}
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, s.viewOrder(o))
}

// reconcileStore is the sale's strategy's store, if it keeps a stock.
func (s *Server) reconcileStore(sl inventory.Sale) (reconcile.Store, bool) {
	inst, err := s.lockers.Get(sl.Strategy, order.LockOptions(sl))
	if err != nil {
		return nil, false
	}
	st, ok := lockstrategy.As[reconcile.Store](inst)
	return st, ok
}

// getReconcile is GET /api/sales/:id/reconcile: the check, now.
func (s *Server) getReconcile(c *gin.Context) {
	sl, st, ok := s.reconcileTarget(c)
	if !ok {
		return
	}
	r, err := reconcile.Check(c.Request.Context(), s.store.DB(), st, s.orders.LockKey(sl.ID), sl.ID)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, r)
}

// postReconcile is POST /api/sales/:id/reconcile {"repair": bool} (admin):
// the check, and the repair of Redis's stock when asked.
func (s *Server) postReconcile(c *gin.Context) {
	var repair *bool
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"repair": &repair}); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	sl, st, ok := s.reconcileTarget(c)
	if !ok {
		return
	}
	ctx, key := c.Request.Context(), s.orders.LockKey(sl.ID)
	if repair == nil || !*repair {
		r, err := reconcile.Check(ctx, s.store.DB(), st, key, sl.ID)
		if err != nil {
			wire.WriteError(c, s.log, err)
			return
		}
		c.JSON(http.StatusOK, gin.H{"before": r, "repaired": false, "after": r})
		return
	}
	before, after, repaired, err := reconcile.Repair(ctx, s.store.DB(), st, key, sl.ID)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	if repaired {
		s.log.Warn("repaired a drifted stock", "sale", sl.ID, "drift", before.Drift, "store_stock", before.StoreStock)
	}
	_ = s.store.SaveDrift(ctx, sl.ID, after)
	if s.soldOut != nil && repaired {
		s.soldOut.Clear(ctx, sl.ID)
	}
	c.JSON(http.StatusOK, gin.H{"before": before, "repaired": repaired, "after": after})
}

// reconcileTarget reads the sale of a reconcile request; a sale whose
// strategy keeps no stock of its own has nothing to reconcile (409).
func (s *Server) reconcileTarget(c *gin.Context) (inventory.Sale, reconcile.Store, bool) {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return inventory.Sale{}, nil, false
	}
	sl, err := s.store.GetSale(c.Request.Context(), id)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return sl, nil, false
	}
	st, ok := s.reconcileStore(sl)
	if !ok {
		wire.WriteError(c, s.log, &wire.Error{Status: http.StatusConflict, Body: wire.Body{Error: "nothing_to_reconcile",
			Message: "strategy " + sl.Strategy + " keeps the stock only in the database: there is no second stock to reconcile"}})
		return sl, nil, false
	}
	return sl, st, true
}

// enrich adds to a sale's view what its modes show: reservations, the
// queue's figures, the reconciliation, and the verdict.
func (s *Server) enrich(ctx context.Context, v *inventory.SaleView) {
	if v.PayWithinMS > 0 {
		if r, err := s.store.Reservations(ctx, v.ID); err == nil {
			v.Reservations = &r
		}
	}
	if v.OrderMode == inventory.OrderAsync {
		if q, err := s.store.Queue(ctx, v.ID); err == nil {
			if qq := s.orders.Queue(); qq != nil {
				if f, err := qq.Figures(ctx, s.orders.LockKey(v.ID)); err == nil {
					q.Accepted, q.InFlight = f.Accepted, f.InFlight
				}
			}
			v.Queue = &q
		}
	}
	st, keepsStock := s.reconcileStore(v.Sale)
	if keepsStock {
		if r, err := reconcile.Check(ctx, s.store.DB(), st, s.orders.LockKey(v.ID), v.ID); err == nil {
			v.Reconcile = &r
		}
	}
	healthy := v.Oversold == 0 && v.LostUpdates == 0 && v.Duplicates == 0 && v.Violations == 0 &&
		(!keepsStock || v.Reconcile != nil && v.Reconcile.Drift == 0 && v.Reconcile.StoreStock >= 0)
	v.Healthy = &healthy
}

// judgeListed is enrich for the sales list, which reads no Redis: the
// drift is the reconciliation job's last (sales.drift).
func judgeListed(v *inventory.SaleView) {
	healthy := v.Oversold == 0 && v.LostUpdates == 0 && v.Duplicates == 0 && v.Violations == 0 && v.Drift == 0
	v.Healthy = &healthy
}

// queueFigures is GET /api/queue: the stream, its group and consumers,
// and the durability of its Redis.
func (s *Server) queueFigures(c *gin.Context) {
	q := s.orders.Queue()
	if q == nil {
		wire.WriteError(c, s.log, wire.ErrNoQueue)
		return
	}
	ctx := c.Request.Context()
	f, err := q.StreamFigures(ctx)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	mode, _ := orderqueue.Durability(ctx, s.queueRedis)
	c.JSON(http.StatusOK, gin.H{"stream": f.Stream, "group": f.Group, "length": f.Length, "lag": f.Lag,
		"pending": f.Pending, "consumers": f.Consumers, "durability": mode})
}

// getDurability is GET /api/queue/durability.
func (s *Server) getDurability(c *gin.Context) {
	if s.queueRedis == nil {
		wire.WriteError(c, s.log, wire.ErrNoQueue)
		return
	}
	mode, err := orderqueue.Durability(c.Request.Context(), s.queueRedis)
	if err != nil {
		wire.WriteError(c, s.log, errors.Join(wire.ErrDurability, err))
		return
	}
	c.JSON(http.StatusOK, gin.H{"mode": mode, "modes": orderqueue.DurabilityModes(), "addr": s.queueRedis.Options().Addr})
}

// putDurability is PUT /api/queue/durability {"mode"} (admin).
func (s *Server) putDurability(c *gin.Context) {
	var mode *string
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"mode": &mode}); err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	valid := false
	for _, m := range orderqueue.DurabilityModes() {
		valid = valid || mode != nil && *mode == m
	}
	if !valid {
		wire.WriteError(c, s.log, wire.BadField("mode", "mode must be none, everysec or always"))
		return
	}
	if s.queueRedis == nil {
		wire.WriteError(c, s.log, wire.ErrNoQueue)
		return
	}
	if err := orderqueue.SetDurability(c.Request.Context(), s.queueRedis, *mode); err != nil {
		wire.WriteError(c, s.log, errors.Join(wire.ErrDurability, err))
		return
	}
	s.log.Info("stream durability set", "mode", *mode)
	s.getDurability(c)
}
