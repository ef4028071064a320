package metrics

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/order"
)

// FirstSecondSpan is the herd's window: the requests that arrived within
// this long of the sale's opening. A herd is over in about a second, and
// this second is what a class wants to see: how many answers, how fast.
const FirstSecondSpan = time.Second

// FirstSecond is the answers to the requests that arrived in the first
// second after the sale's opening, merged across replicas: every answer,
// the guards' included (the sold-out cache answers most of a herd).
// Latency is the shop's own time to answer, from the request's arrival;
// OrdersLatency and SoldOutLatency are the same time of the orders (201
// and 202) alone and of the sold-out answers alone: mixed, the sold-out
// cache's microseconds hide what an order costs.
type FirstSecond struct {
	Requests       int64            `json:"requests"`
	Outcomes       map[string]int64 `json:"outcomes"`
	Layers         map[string]int64 `json:"layers"`
	Latency        Percentiles      `json:"latency_ms"`
	OrdersLatency  Percentiles      `json:"orders_latency_ms"`
	SoldOutLatency Percentiles      `json:"sold_out_latency_ms"`
	// OrdersTimed and SoldOutTimed are the answers those two histograms
	// hold: fewer than the outcomes count when a replica's row was written
	// before they were kept (its answers are in Latency only).
	OrdersTimed  int64 `json:"orders_timed"`
	SoldOutTimed int64 `json:"sold_out_timed"`
}

// firstSecond is one replica's share of FirstSecond; the caller holds the
// sale's mutex.
type firstSecond struct {
	requests int64
	outcomes map[string]int64
	layers   map[string]int64
	latency  *hdrhistogram.Histogram
	orders   *hdrhistogram.Histogram // the answers that were orders: 201 and 202
	soldOut  *hdrhistogram.Histogram // the sold-out answers, whichever layer gave them
}

func newFirstSecond() *firstSecond {
	return &firstSecond{outcomes: map[string]int64{}, layers: map[string]int64{}, latency: newHist(),
		orders: newHist(), soldOut: newHist()}
}

// isOrder says whether outcome is an order: a 201, or a 202 (queued).
func isOrder(outcome string) bool {
	return outcome == order.OutcomeOK || outcome == order.OutcomeQueued
}

// inFirstSecond says whether o arrived within FirstSecondSpan of its
// sale's opening (an observation without an opening never does).
func inFirstSecond(o order.Observation) bool {
	if o.Opening.IsZero() || o.Arrived.Before(o.Opening) {
		return false
	}
	return o.Arrived.Sub(o.Opening) < FirstSecondSpan
}

func (f *firstSecond) record(o order.Observation) {
	f.requests++
	f.outcomes[o.Outcome]++
	if o.Layer != "" {
		f.layers[o.Layer]++
	}
	recordDuration(f.latency, o.Total)
	switch {
	case isOrder(o.Outcome):
		recordDuration(f.orders, o.Total)
	case o.Outcome == order.OutcomeSoldOut:
		recordDuration(f.soldOut, o.Total)
	}
}

// firstPayload is firstSecond as sale_stats.payload stores it.
// The split histograms are absent in a row written before they were kept.
type firstPayload struct {
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Layers   map[string]int64 `json:"layers"`
	Latency  string           `json:"latency_us"`
	Orders   string           `json:"orders_latency_us,omitempty"`
	SoldOut  string           `json:"sold_out_latency_us,omitempty"`
}

// payload copies f for publishing; nil when nothing arrived in the window.
func (f *firstSecond) payload() (*firstPayload, error) {
	if f.requests == 0 {
		return nil, nil
	}
	p := &firstPayload{Requests: f.requests, Outcomes: copyCounts(f.outcomes), Layers: copyCounts(f.layers)}
	for _, x := range []struct {
		dst *string
		h   *hdrhistogram.Histogram
	}{{&p.Latency, f.latency}, {&p.Orders, f.orders}, {&p.SoldOut, f.soldOut}} {
		b, err := x.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("metrics: encode histogram: %w", err)
		}
		*x.dst = string(b)
	}
	return p, nil
}

// add merges p (an earlier payload, or another replica's) into f.
func (f *firstSecond) add(p *firstPayload) error {
	if p == nil {
		return nil
	}
	hs := make([]*hdrhistogram.Histogram, 3)
	for i, src := range []string{p.Latency, p.Orders, p.SoldOut} {
		if src == "" && i > 0 {
			continue // written before the split was kept
		}
		h, err := hdrhistogram.Decode([]byte(src))
		if err != nil {
			return fmt.Errorf("%w: first-second histogram: %w", ErrBadPayload, err)
		}
		hs[i] = h
	}
	for i, dst := range []*hdrhistogram.Histogram{f.latency, f.orders, f.soldOut} {
		if hs[i] != nil {
			dst.Merge(hs[i])
		}
	}
	f.requests += p.Requests
	for k, v := range p.Outcomes {
		f.outcomes[k] += v
	}
	for k, v := range p.Layers {
		f.layers[k] += v
	}
	return nil
}

// view is f as the API shows it.
func (f *firstSecond) view() FirstSecond {
	return FirstSecond{Requests: f.requests, Outcomes: copyCounts(f.outcomes), Layers: copyCounts(f.layers),
		Latency: percentiles(f.latency), OrdersLatency: percentiles(f.orders), SoldOutLatency: percentiles(f.soldOut),
		OrdersTimed: f.orders.TotalCount(), SoldOutTimed: f.soldOut.TotalCount()}
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
