package load

import (
	"context"
	"fmt"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// CheckHistory asks the shop to check sale id's history for
// linearizability, after SettledSale (every replica wrote its answers'
// history). Nil when no target answers (an older shop has no such route).
func CheckHistory(ctx context.Context, c *shopapi.Client, targets []string, id uint64) *shopapi.HistoryView {
	for i := len(targets) - 1; i >= 0; i-- {
		if h, err := c.History(ctx, targets[i], id); err == nil {
			return &h
		}
	}
	return nil
}

// historyLine is the check's verdict for a table: the verdict, the
// requests checked, and the reason.
func historyLine(h *shopapi.HistoryView) string {
	if h == nil {
		return "not checked (the shop did not answer GET /api/sales/{id}/history)"
	}
	return fmt.Sprintf("%s (%d requests): %s", h.Verdict, h.Operations, h.Message.En)
}

// historyVerdict is the check's verdict for a column: "-" when unchecked.
func historyVerdict(h *shopapi.HistoryView) string {
	if h == nil {
		return "-"
	}
	return h.Verdict
}
