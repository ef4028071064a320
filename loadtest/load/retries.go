package load

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Retries is what a sale's optimistic writes paid in rounds: the CAS
// rounds its orders lost (db-optimistic retries a lost round from the read)
// against the orders made, from the shop's live figures merged across
// replicas (GET /api/sales/{id}/live).
type Retries struct {
	Rounds   int64   `json:"rounds"`    // CAS rounds lost, all orders together
	Orders   int64   `json:"orders"`    // orders the shop counted as made
	PerOrder float64 `json:"per_order"` // Rounds / Orders
}

// liveRetries is the part of GET /api/sales/{id}/live that Retries reads.
type liveRetries struct {
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Retries  int64            `json:"retries"`
}

// retriesWait bounds the wait for every replica's live figures to count the
// run's last answers: they are published about once a second.
const retriesWait = 3 * time.Second

// ReadRetries reads sale id's retries once the live figures count the
// answered requests given by the shop (or retriesWait passed); nil when no
// target answers the route.
func ReadRetries(ctx context.Context, c *shopapi.Client, targets []string, id uint64, answered int64) *Retries {
	if len(targets) == 0 {
		return nil
	}
	url := targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/live"
	deadline := time.Now().Add(retriesWait)
	for {
		var l liveRetries
		if _, err := c.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l); err != nil {
			return nil
		}
		if l.Requests >= answered || time.Now().After(deadline) {
			r := Retries{Rounds: l.Retries, Orders: l.Outcomes["ok"]}
			if r.Orders > 0 {
				r.PerOrder = float64(r.Rounds) / float64(r.Orders)
			}
			return &r
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// retriesLine is the retries for a table.
func retriesLine(r *Retries) string {
	return fmt.Sprintf("%d CAS rounds lost over %d orders: %.2f per order", r.Rounds, r.Orders, r.PerOrder)
}
