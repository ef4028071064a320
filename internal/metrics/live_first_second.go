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
// Latency is the shop's own time to answer, from the request's arrival.
type FirstSecond struct {
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Layers   map[string]int64 `json:"layers"`
	Latency  Percentiles      `json:"latency_ms"`
}

// firstSecond is one replica's share of FirstSecond; the caller holds the
// sale's mutex.
type firstSecond struct {
	requests int64
	outcomes map[string]int64
	layers   map[string]int64
	latency  *hdrhistogram.Histogram
}

func newFirstSecond() *firstSecond {
	return &firstSecond{outcomes: map[string]int64{}, layers: map[string]int64{}, latency: newHist()}
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
}

// firstPayload is firstSecond as sale_stats.payload stores it.
type firstPayload struct {
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Layers   map[string]int64 `json:"layers"`
	Latency  string           `json:"latency_us"`
}

// payload copies f for publishing; nil when nothing arrived in the window.
func (f *firstSecond) payload() (*firstPayload, error) {
	if f.requests == 0 {
		return nil, nil
	}
	p := &firstPayload{Requests: f.requests, Outcomes: copyCounts(f.outcomes), Layers: copyCounts(f.layers)}
	b, err := f.latency.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("metrics: encode histogram: %w", err)
	}
	p.Latency = string(b)
	return p, nil
}

// add merges p (an earlier payload, or another replica's) into f.
func (f *firstSecond) add(p *firstPayload) error {
	if p == nil {
		return nil
	}
	h, err := hdrhistogram.Decode([]byte(p.Latency))
	if err != nil {
		return fmt.Errorf("%w: first-second histogram: %w", ErrBadPayload, err)
	}
	f.latency.Merge(h)
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
		Latency: percentiles(f.latency)}
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
