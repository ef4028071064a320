package httpapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// Who may read or pay an order. Order ids are sequential, so an id proves
// nothing: an order is read by its order ticket (128 random bits), or by
// its id with its order_token, which every answer showing the order
// carries, or (read only) with the admin token. Paying takes the ticket or
// the order_token; a user id, which anyone can learn, is no proof.

// DefaultOrderRateIP is the order routes' budget per client IP, in
// requests per second (and burst): a shopper's page polls a ticket at
// most every 300 ms, a probe walking the ids is held to this.
const DefaultOrderRateIP = 30

// orderRateScope names the order routes' budget in the limiter.
const orderRateScope = "orders"

// orderView is an order as the API shows it: with the token that proves
// its holder.
type orderView struct {
	inventory.Order
	OrderToken string `json:"order_token"`
}

// ticketView is a ticket's state with its order, once there is one, as
// an orderView.
type ticketView struct {
	orderqueue.TicketState
	Order *orderView `json:"order"`
}

// viewOrder adds o's token.
func (s *Server) viewOrder(o inventory.Order) orderView {
	return orderView{Order: o, OrderToken: s.orderTokens.Sign(o.ID, o.SaleID, o.UserID)}
}

// viewTicket adds the token of st's order, if it has one.
func (s *Server) viewTicket(st orderqueue.TicketState) ticketView {
	v := ticketView{TicketState: st}
	if st.Order != nil {
		o := s.viewOrder(*st.Order)
		v.Order = &o
	}
	return v
}

// limitOrderRoutes holds each client IP to OrderRateIP requests per second
// on the order routes, reading and paying together (429 rate_limited
// beyond it); a request with the admin token, when one is set, is not
// limited: the operators' checkers read every ticket of a run.
func (s *Server) limitOrderRoutes(c *gin.Context) {
	if s.orderRateIP > 0 && !s.adminPresented(c) {
		if err := s.orderLimits.CheckClient(c.Request.Context(), orderRateScope, s.orderRateIP, s.clientIP(c)); err != nil {
			wire.WriteError(c, s.log, err)
			return
		}
	}
	c.Next()
}

// adminPresented says whether an admin token is set and c carries it
// (adminOK lets everyone through when none is set).
func (s *Server) adminPresented(c *gin.Context) bool { return s.adminHash != nil && s.adminOK(c) }

// provenOrder reads order id for a caller that proves it may: with the
// admin token, or with the order's token. Without a token the answer is
// ErrOrderTokenRequired before any read; a token that is not the order's
// and an id that names no order get the same ErrBadOrderToken, so the
// answer tells nothing of which ids exist.
func (s *Server) provenOrder(ctx context.Context, id, token string, admin bool) (inventory.Order, error) {
	if !admin && token == "" {
		return inventory.Order{}, guard.ErrOrderTokenRequired
	}
	o, err := s.orders.Resolve(ctx, id)
	if admin {
		return o, err
	}
	if errors.Is(err, order.ErrOrderNotFound) {
		return inventory.Order{}, guard.ErrBadOrderToken
	}
	if err != nil {
		return inventory.Order{}, err
	}
	if err := s.orderTokens.Verify(token, o.ID, o.SaleID, o.UserID); err != nil {
		return inventory.Order{}, err
	}
	return o, nil
}

// payment is the body of a payment: {"order_token", "user_id"}, both
// optional ("" when absent).
type payment struct {
	token  string
	userID string
}

// paymentBody reads a payment: order_token a string, user_id as an order's.
func paymentBody(c *gin.Context) (payment, error) {
	var p payment
	var token *string
	var user json.RawMessage
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"order_token": &token, "user_id": &user}); err != nil {
		return p, err
	}
	if token != nil {
		p.token = *token
	}
	if len(user) > 0 && string(user) != "null" {
		id, err := parseUserID(user)
		if err != nil {
			return p, err
		}
		p.userID = id
	}
	return p, nil
}

// payProof is the check a payment of ref must pass: the ticket is proof
// by itself, an id needs the order's token; a user_id, when given, must
// be the buyer's. The token is checked first, so only its holder learns
// whose order it is.
func (s *Server) payProof(ref string, p payment) func(inventory.Order) error {
	byTicket := orderqueue.ValidTicket(ref)
	return func(o inventory.Order) error {
		if !byTicket {
			if err := s.orderTokens.Verify(p.token, o.ID, o.SaleID, o.UserID); err != nil {
				return err
			}
		}
		if p.userID != "" && p.userID != o.UserID {
			return order.ErrNotYourOrder
		}
		return nil
	}
}
