package load

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// shopHerdWait bounds the wait for the replicas' live figures to count
// every answer: they publish once a second.
const shopHerdWait = 5 * time.Second

// ShopHerd reads the shop's figures of the herd on sale id (GET
// /api/sales/{id}/herd, what the dashboard's Herd panel shows), asking
// again until they count the answers the load saw (answered) or
// shopHerdWait has passed. Nil when no target answers (an older shop).
func ShopHerd(ctx context.Context, c *shopapi.Client, targets []string, id uint64, answered int64) *shopapi.HerdView {
	deadline := time.Now().Add(shopHerdWait)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		var got *shopapi.HerdView
		for _, t := range targets {
			if h, err := c.Herd(ctx, t, id); err == nil {
				got = &h
				break
			}
		}
		if got == nil || got.Answers >= answered || time.Now().After(deadline) {
			return got
		}
		select {
		case <-ctx.Done():
			return got
		case <-tick.C:
		}
	}
}

// answeredByShop counts the answers that named their layer: the ones the
// shop's live figures count too.
func answeredByShop(layers map[string]int64) int64 {
	var n int64
	for l, c := range layers {
		if l != shopapi.LayerUnknown {
			n += c
		}
	}
	return n
}

// AnsweredByShop is answeredByShop of r's answers.
func (r Result) AnsweredByShop() int64 { return answeredByShop(r.Layers) }

// shopHerdLines are the shop's herd figures for the table, as the
// dashboard's Herd panel shows them.
func shopHerdLines(h *shopapi.HerdView) []string {
	if h == nil {
		return []string{"not read (the shop did not answer GET /api/sales/{id}/herd)"}
	}
	sell := "not sold out"
	if h.SellOutMS != nil {
		sell = fmt.Sprintf("sold out %.0f ms after the opening (first to last unit %.0f ms)", *h.SellOutMS, deref(h.SellOutFromFirstMS))
	}
	f := h.FirstSecond
	return []string{sell,
		fmt.Sprintf("first second: %d answers (%d orders, %d sold out, %d others); the shop's answer time ms p50 %.3f  p99 %.3f",
			f.Answers, f.Orders, f.SoldOut, f.Others, f.P50MS, f.P99MS),
		"who answered: " + herdRows(h.Layers)}
}

func herdRows(rows []shopapi.HerdRow) string {
	if len(rows) == 0 {
		return "none"
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("%s %d (%.1f%%)", r.Layer, r.Count, r.Percent)
	}
	return strings.Join(parts, ", ")
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
