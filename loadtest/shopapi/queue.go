package shopapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// The queue's API as the chaos run and the durability lesson use it: async
// sales, order tickets, reconciliation and the durability of the stream's
// Redis.

// Durability modes of the stream's Redis, weakest first.
const (
	DurabilityNone     = "none"
	DurabilityEverysec = "everysec"
	DurabilityAlways   = "always"
)

// DurabilityModes are the durability modes, weakest first.
var DurabilityModes = []string{DurabilityNone, DurabilityEverysec, DurabilityAlways}

// Ticket states of GET /api/orders/:ticket; lost is ours: the shop answered
// 404, the ticket is known nowhere (Redis restarted without it).
const (
	TicketPending   = "pending"
	TicketConfirmed = "confirmed"
	TicketFailed    = "failed"
	TicketLost      = "lost"
)

// repairAnswer is POST /api/sales/:id/reconcile's answer.
type repairAnswer struct {
	Before   ReconcileView `json:"before"`
	Repaired bool          `json:"repaired"`
	After    ReconcileView `json:"after"`
}

// QueueInfo is GET /api/queue.
type queueInfo struct {
	Length     int64  `json:"length"`
	Lag        int64  `json:"lag"`
	Pending    int64  `json:"pending"`
	Durability string `json:"durability"`
}

// TicketView is GET /api/orders/:ticket, State lost for a 404.
type TicketView struct {
	Ticket string `json:"order_ticket"`
	SaleID uint64 `json:"sale_id"`
	UserID string `json:"user_id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	Order  *struct {
		ID     uint64  `json:"order_id"`
		Status string  `json:"status"`
		Ticket *string `json:"order_ticket"`
	} `json:"order"`
}

func saleURL(target string, id uint64) string {
	return target + "/api/sales/" + strconv.FormatUint(id, 10)
}

// Reconcile is GET /api/sales/:id/reconcile: the drift computed now.
func (c *Client) Reconcile(ctx context.Context, target string, id uint64) (ReconcileView, error) {
	var v ReconcileView
	_, err := c.CallJSON(ctx, http.MethodGet, saleURL(target, id)+"/reconcile", nil, http.StatusOK, &v)
	return v, err
}

// Repair is POST /api/sales/:id/reconcile {"repair": true}.
func (c *Client) Repair(ctx context.Context, target string, id uint64) (repairAnswer, error) {
	var v repairAnswer
	_, err := c.CallJSON(ctx, http.MethodPost, saleURL(target, id)+"/reconcile", map[string]bool{"repair": true}, http.StatusOK, &v)
	return v, err
}

// QueueInfo is GET /api/queue.
func (c *Client) QueueInfo(ctx context.Context, target string) (queueInfo, error) {
	var v queueInfo
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/queue", nil, http.StatusOK, &v)
	return v, err
}

// Durability is GET /api/queue/durability's mode.
func (c *Client) Durability(ctx context.Context, target string) (string, error) {
	var v struct {
		Mode string `json:"mode"`
	}
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/queue/durability", nil, http.StatusOK, &v)
	return v.Mode, err
}

// SetDurability is PUT /api/queue/durability (admin): it answers once the
// AOF rewrite is done and the mode is written to the config file.
func (c *Client) SetDurability(ctx context.Context, target, mode string) error {
	var v struct {
		Mode string `json:"mode"`
	}
	if err := c.queueCall(ctx, http.MethodPut, target+"/api/queue/durability", map[string]string{"mode": mode}, &v); err != nil {
		return err
	}
	if v.Mode != mode {
		return fmt.Errorf("PUT durability %s: the shop answered mode %q", mode, v.Mode)
	}
	return nil
}

// ticket is GET /api/orders/:ticket; a 404 is the state lost.
func (c *Client) Ticket(ctx context.Context, target, ticket string) (TicketView, error) {
	var v TicketView
	err := c.queueCall(ctx, http.MethodGet, target+"/api/orders/"+ticket, nil, &v)
	var se *queueCallError
	if errors.As(err, &se) && se.status == http.StatusNotFound && se.code == "not_found" {
		return TicketView{Ticket: ticket, State: TicketLost}, nil
	}
	return v, err
}

// Pay is POST /api/orders/:ref/pay for user; it returns the outcome kind
// ("paid" or the shop's code).
func (c *Client) Pay(ctx context.Context, target, ref, user string) string {
	var v map[string]any
	err := c.queueCall(ctx, http.MethodPost, target+"/api/orders/"+ref+"/pay", map[string]string{"user_id": user}, &v)
	var se *queueCallError
	switch {
	case err == nil:
		return "paid"
	case errors.As(err, &se) && ValidCode(se.code):
		return "pay_" + se.code
	}
	return "pay_" + transportKind(err)
}

// queueCallError is an answer with another status than the one wanted,
// with the shop's error code.
type queueCallError struct {
	status int
	code   string
	err    error
}

func (e *queueCallError) Error() string { return e.err.Error() }

// queueCall is CallJSON for any method, with the admin token on writes and
// order reads,
// expecting a 200; another status is an *queueCallError (its code read).
func (c *Client) queueCall(ctx context.Context, method, url string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.authorize(req)
	resp, err := c.Http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e APIErrorBody
		_ = json.Unmarshal(raw, &e)
		return &queueCallError{status: resp.StatusCode, code: e.Error, err: StatusError(method, url, resp.StatusCode, raw)}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s %s: not the JSON expected: %w", method, url, err)
	}
	return nil
}
