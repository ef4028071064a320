package metrics

import (
	"context"
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/salestats"
)

// Percentiles of a latency distribution, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
	// Mean is exact over the recorded values (to the histogram's precision),
	// read from the merged histogram like the percentiles: a throughput
	// limit such as 1/(mean critical section + lock round trip) needs a
	// mean, which no percentile gives (make bench, scripts/bench.sh).
	Mean float64 `json:"mean"`
}

// ReplicaLive is one replica's share of a sale's live figures.
type ReplicaLive struct {
	ReplicaID string    `json:"replica_id"`
	UpdatedAt time.Time `json:"updated_at"`
	Requests  int64     `json:"requests"`
	Orders    int64     `json:"orders"`
	Errors    int64     `json:"errors"`
	P99       float64   `json:"p99_ms"`
}

// SaleLive is the server-side view of one sale merged across every replica
// (histograms merged, never percentiles averaged), at most ~1 s old.
type SaleLive struct {
	SaleID    uint64           `json:"sale_id"`
	UpdatedAt time.Time        `json:"updated_at"`
	Requests  int64            `json:"requests"`
	Outcomes  map[string]int64 `json:"outcomes"`
	// Layers counts the answers by the layer that gave them: the guards
	// (opening, ticket, rate_limit, idempotency, sold_out_cache), then
	// lock, database and store.
	Layers map[string]int64 `json:"layers"`
	// FirstSecond is the answers to the requests that arrived in the first
	// second after the sale's opening (a herd's decisive second).
	FirstSecond FirstSecond `json:"first_second"`
	Latency     Percentiles `json:"latency_ms"`
	LockWait    Percentiles `json:"lock_wait_ms"`
	Critical    Percentiles `json:"critical_section_ms"`
	Retries     int64       `json:"retries"`
	// QuorumRounds is what a quorum lock's acquisitions took (redlock).
	QuorumRounds quorumRounds `json:"quorum_rounds"`
	// Fairness is the share of lock acquisitions served in arrival order
	// (1 = strictly FIFO); 0 when there were none.
	Fairness float64       `json:"fairness"`
	Replicas []ReplicaLive `json:"replicas"`
}

// LoadMerged reads every replica's latest published figures for saleID and
// merges them: histograms are merged count by count and percentiles read
// from the merged one (an average of per-replica p99s means nothing),
// counters are summed. A sale nobody has published for yet gives zero
// figures, not an error; whether the sale exists is the caller's question.
func LoadMerged(ctx context.Context, db *gorm.DB, saleID uint64) (SaleLive, error) {
	out := SaleLive{SaleID: saleID, Outcomes: map[string]int64{}, Layers: map[string]int64{}, Replicas: []ReplicaLive{}}
	rows, err := salestats.ForSale(ctx, db, saleID)
	if err != nil {
		return out, err
	}
	lat, lw, cs := newHist(), newHist(), newHist()
	first := newFirstSecond()
	var fair Fairness
	for _, row := range rows {
		p, err := decodePayload(row.Payload)
		if err != nil {
			return out, fmt.Errorf("sale %d replica %s: %w", saleID, row.ReplicaID, err)
		}
		h, err := decodeHists(&p)
		if err != nil {
			return out, fmt.Errorf("sale %d replica %s: %w", saleID, row.ReplicaID, err)
		}
		lat.Merge(h.latency)
		lw.Merge(h.lockWait)
		cs.Merge(h.critical)
		out.Requests += p.Requests
		for k, v := range p.Outcomes {
			out.Outcomes[k] += v
		}
		for k, v := range p.Layers {
			out.Layers[k] += v
		}
		if err := first.add(p.First); err != nil {
			return out, fmt.Errorf("sale %d replica %s: %w", saleID, row.ReplicaID, err)
		}
		out.Retries += p.Retries
		out.QuorumRounds = out.QuorumRounds.add(p.Quorum)
		fair = fair.Add(p.Fairness)
		updated := row.UpdatedAt
		if updated.After(out.UpdatedAt) {
			out.UpdatedAt = updated
		}
		out.Replicas = append(out.Replicas, ReplicaLive{ReplicaID: row.ReplicaID, UpdatedAt: updated,
			Requests: p.Requests, Orders: p.Outcomes[order.OutcomeOK], Errors: errorCount(p.Outcomes),
			P99: percentiles(h.latency).P99})
	}
	out.Latency, out.LockWait, out.Critical = percentiles(lat), percentiles(lw), percentiles(cs)
	out.FirstSecond = first.view()
	out.Fairness = fair.Ratio()
	return out, nil
}

// errorOutcomes are the outcomes a replica's "errors" column counts: the
// request failed for a reason of the system (a backend or the database that
// does not answer among them), not of the sale (sold out, per-user limit)
// or of contention a retry fixes by design (conflict).
var errorOutcomes = []string{order.OutcomeError, order.OutcomeLockTimeout, order.OutcomeLockLost,
	order.OutcomeBackendDown, order.OutcomeDBUnavailable, order.OutcomeAcceptUnknown}

func errorCount(outcomes map[string]int64) int64 {
	var n int64
	for _, o := range errorOutcomes {
		n += outcomes[o]
	}
	return n
}

// percentiles reads h (microseconds) in milliseconds; zeros when empty.
func percentiles(h *hdrhistogram.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Percentiles{P50: ms(h.ValueAtQuantile(50)), P95: ms(h.ValueAtQuantile(95)),
		P99: ms(h.ValueAtQuantile(99)), Max: ms(h.Max()), Mean: math.Round(h.Mean()) / 1000}
}
