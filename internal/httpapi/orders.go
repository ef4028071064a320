package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// MaxUserIDLen bounds user_id in characters (orders.user_id is VARCHAR(64)).
const MaxUserIDLen = buyer.MaxIDLen

// Headers of the order endpoint.
const (
	// headerLayer names the layer that answered an order (guard.Layer*,
	// order.Layer*): every answer carries it, so a load tool counts the
	// answers per layer without parsing bodies.
	headerLayer = "Seckill-Layer"
	// headerIdempotencyKey makes a retried request return the first answer.
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotency-Replayed"
)

// placeOrder is POST /api/sales/:id/orders {"user_id", "ticket"}: the hot
// path, through the guards (guard.Gate) to the order flow; a 201's order
// carries its order_token. It logs nothing unless something unexpected
// fails.
func (s *Server) placeOrder(c *gin.Context) {
	req, err := s.orderRequest(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	a, layer, err := s.gate.Buy(c.Request.Context(), req)
	c.Header(headerLayer, layer)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	if a.Replayed {
		c.Header(headerReplayed, "true")
	}
	if a.Order.Status == inventory.StatusPending {
		accepted(c, a.Order)
		return
	}
	c.JSON(http.StatusCreated, s.viewOrder(a.Order))
}

// orderRequest reads an order: the sale id, the body and the headers.
func (s *Server) orderRequest(c *gin.Context) (guard.Request, error) {
	id, err := saleID(c)
	if err != nil {
		return guard.Request{}, err
	}
	var raw json.RawMessage
	var ticket *string
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"user_id": &raw, "ticket": &ticket}); err != nil {
		return guard.Request{}, err
	}
	userID, err := parseUserID(raw)
	if err != nil {
		return guard.Request{}, err
	}
	key, err := idempotencyKey(c.GetHeader(headerIdempotencyKey))
	if err != nil {
		return guard.Request{}, err
	}
	req := guard.Request{SaleID: id, UserID: userID, ClientIP: s.clientIP(c), IdempotencyKey: key}
	if ticket != nil {
		req.Ticket = *ticket
	}
	return req, nil
}

// idempotencyKey accepts an absent header, or a key buyer.CheckKey allows.
func idempotencyKey(k string) (string, error) {
	if err := buyer.CheckKey(k); err != nil {
		return "", buyerField(err)
	}
	return k, nil
}

// buyerField is buyer's refusal as a 400 naming the field.
func buyerField(err error) error {
	var be *buyer.Error
	if errors.As(err, &be) {
		return wire.BadField(be.Field, "%s", be.Message)
	}
	return err
}

// issueTicket is POST /api/sales/:id/ticket {"user_id"}: a purchase ticket
// for that user, once the sale is open. It writes nothing: the ticket is
// signed, not stored.
func (s *Server) issueTicket(c *gin.Context) {
	id, err := saleID(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	userID, err := userIDBody(c)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	ticket, exp, err := s.gate.Ticket(c.Request.Context(), id, userID)
	if err != nil {
		wire.WriteError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"ticket": ticket, "sale_id": id, "user_id": userID, "expires_at": exp.UTC()})
}

// userIDBody reads a body that is only {"user_id"}: a ticket request.
func userIDBody(c *gin.Context) (string, error) {
	var raw json.RawMessage
	if err := wire.DecodeObject(c.Request.Body, map[string]any{"user_id": &raw}); err != nil {
		return "", err
	}
	return parseUserID(raw)
}

// parseUserID accepts a string that names a buyer (buyer.CheckID: at most
// MaxUserIDLen characters, nothing the database would fold into another
// id), or a JSON integer, which becomes its decimal string: load generators
// naturally number their buyers, and 42 and "42" are then the same buyer.
func parseUserID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", wire.BadField("user_id", "user_id is required")
	}
	var id string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", wire.BadField("user_id", "user_id must be a string or an integer")
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			id = strconv.FormatInt(n, 10)
		} else if u, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
			id = strconv.FormatUint(u, 10)
		} else {
			return "", wire.BadField("user_id", "user_id must be a string or an integer, not %s", wire.DescribeJSON(raw))
		}
	default:
		return "", wire.BadField("user_id", "user_id must be a string or an integer, not %s", wire.DescribeJSON(raw))
	}
	if err := buyer.CheckID(id); err != nil {
		return "", buyerField(err)
	}
	return id, nil
}
