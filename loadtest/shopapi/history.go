package shopapi

import (
	"context"
	"net/http"
	"strconv"
)

// HistoryView is GET /api/sales/{id}/history: the sale's answered order
// requests checked for linearizability by the shop.
type HistoryView struct {
	Verdict    string `json:"verdict"` // linearizable, not_linearizable or unknown
	Operations int    `json:"operations"`
	Witness    []struct {
		ID      uint64  `json:"id"`
		OrderID *uint64 `json:"order_id"`
		Outcome string  `json:"outcome"`
	} `json:"witness"`
	Message struct {
		En string `json:"en"`
		Zh string `json:"zh"`
	} `json:"message"`
	Visualization string `json:"visualization"`
}

// History is GET target/api/sales/{id}/history. Read it after SettledSale:
// every replica has then written the history of the answers it gave.
func (c *Client) History(ctx context.Context, target string, id uint64) (HistoryView, error) {
	var h HistoryView
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/sales/"+strconv.FormatUint(id, 10)+"/history", nil, http.StatusOK, &h)
	return h, err
}
