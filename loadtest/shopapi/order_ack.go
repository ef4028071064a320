package shopapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// What a buyer knows about one order request.
const (
	AckOrder   = iota // 201 with an order id: the order must be in the database
	AckRefused        // the shop said no (409, 503 or 4xx with its code): no order may exist
	AckUnknown        // no answer, a timeout or a 5xx: the order may or may not exist
	AckTicket         // 202 with an order ticket: it must end confirmed or failed
)

// OrderAck is one POST of an order and what the buyer learnt from its answer (an order id
// for a 201, a ticket for a 202).
func (c *Client) OrderAck(ctx context.Context, ordersURL, userID string) (ack int, orderID uint64, ticket, kind string) {
	body, _ := json.Marshal(map[string]string{"user_id": userID}) // any id, control characters included, as valid JSON
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ordersURL, bytes.NewReader(body))
	if err != nil {
		return AckUnknown, 0, "", KindTransport
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Http.Do(req)
	if err != nil {
		return AckUnknown, 0, "", transportKind(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return AckUnknown, 0, "", KindTransport
	}
	if resp.StatusCode == http.StatusCreated {
		var o struct {
			ID uint64 `json:"order_id"`
		}
		if json.Unmarshal(raw, &o) != nil || o.ID == 0 {
			return AckUnknown, 0, "", "bad_201"
		}
		return AckOrder, o.ID, "", KindOrder
	}
	if resp.StatusCode == http.StatusAccepted {
		var a struct {
			Ticket string `json:"order_ticket"`
		}
		if json.Unmarshal(raw, &a) != nil || !strings.HasPrefix(a.Ticket, "ot_") {
			return AckUnknown, 0, "", "bad_202"
		}
		return AckTicket, 0, a.Ticket, KindAccepted
	}
	var e APIErrorBody
	_ = json.Unmarshal(raw, &e)
	if resp.StatusCode >= 400 && resp.StatusCode < 500 || resp.StatusCode == http.StatusServiceUnavailable {
		if e.Error == "db_unavailable" || e.Error == "accept_unknown" {
			// The connection died: a COMMIT (or the queue's accept) may
			// have reached the server before it did (the shop says so), as
			// with no answer at all.
			return AckUnknown, 0, "", e.Error
		}
		if ValidCode(e.Error) {
			return AckRefused, 0, "", e.Error
		}
	}
	return AckUnknown, 0, "", fmt.Sprintf("%s%d", KindHTTP, resp.StatusCode)
}
