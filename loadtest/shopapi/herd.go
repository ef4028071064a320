package shopapi

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// HerdView is GET /api/sales/{id}/herd: the shop's own figures of a herd,
// the ones the dashboard's Herd panel shows. Times are the shop's: the
// first second counts the requests that arrived in it, their latency is
// the shop's time to answer.
type HerdView struct {
	SaleID             uint64     `json:"sale_id"`
	OpensAt            time.Time  `json:"opens_at"`
	Sold               int64      `json:"sold"`
	SoldOut            bool       `json:"sold_out"`
	SellOutMS          *float64   `json:"sell_out_ms"`
	SellOutFromFirstMS *float64   `json:"sell_out_from_first_ms"`
	Answers            int64      `json:"answers"`
	Layers             []HerdRow  `json:"layers"`
	FirstSecond        HerdSecond `json:"first_second"`
}

// HerdSecond is the herd's first second as the shop counted it.
type HerdSecond struct {
	Answers int64     `json:"answers"`
	Orders  int64     `json:"orders"`
	SoldOut int64     `json:"sold_out"`
	Others  int64     `json:"others"`
	P50MS   float64   `json:"p50_ms"`
	P99MS   float64   `json:"p99_ms"`
	Layers  []HerdRow `json:"layers"`
}

// HerdRow is one layer's answers and their share in percent.
type HerdRow struct {
	Layer   string  `json:"layer"`
	Count   int64   `json:"count"`
	Percent float64 `json:"percent"`
}

// Herd is GET target/api/sales/{id}/herd.
func (c *Client) Herd(ctx context.Context, target string, id uint64) (HerdView, error) {
	var h HerdView
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/sales/"+strconv.FormatUint(id, 10)+"/herd", nil, http.StatusOK, &h)
	return h, err
}
