package metrics

import (
	"log/slog"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/order"
)

// HDR histogram range of the live figures, in microseconds: 1 µs to
// 10 min at 3 significant figures (0.1 % error), enough for a lock wait
// bounded by seconds and an order that took a GC pause. Values outside are
// clamped, never dropped, so that counts add up to requests.
const (
	histLowestUS  = 1
	histHighestUS = int64(10 * time.Minute / time.Microsecond)
	histSigFigs   = 3
)

// Bounds of the per-sale state.
const (
	// idleAfter: a sale with no observation for this long (and nothing left
	// to publish) is dropped from memory. Its row stays in sale_stats and
	// is merged back in if the sale comes back (see Publish), so dropping
	// loses nothing.
	idleAfter = 60 * time.Second
	// maxWindow bounds the grants buffered for the fairness figure between
	// two publishes; a burst beyond it is folded into the counts at once.
	maxWindow = 1 << 16
)

// LiveRecorder keeps per-sale live figures (HDR histograms of latency,
// lock wait and critical-section time; outcome counts; retries; fairness)
// and publishes them to sale_stats with Run. It implements order.Recorder
// and forwards every observation to the Prometheus collectors it was given,
// so one Recorder feeds both. Safe for concurrent use.
type LiveRecorder struct {
	prom  *Metrics // nil: no Prometheus side
	log   *slog.Logger
	now   func() time.Time
	mu    sync.RWMutex
	sales map[uint64]*saleState
	pubMu sync.Mutex // one Publish at a time: seeding and windows assume it
}

var _ order.Recorder = (*LiveRecorder)(nil)

// NewLiveRecorder returns a recorder that also feeds prom (nil for none).
// log receives publish failures; nil discards them.
func NewLiveRecorder(prom *Metrics, log *slog.Logger) *LiveRecorder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LiveRecorder{prom: prom, log: log, now: time.Now, sales: map[uint64]*saleState{}}
}

// saleState is one sale's cumulative figures on this replica. Its mutex is
// held for a few histogram increments on the order path, and for a copy of
// the counts when publishing: never across I/O.
type saleState struct {
	mu       sync.Mutex
	strategy string
	latency  *hdrhistogram.Histogram
	lockWait *hdrhistogram.Histogram
	critical *hdrhistogram.Histogram
	requests int64
	outcomes map[string]int64
	layers   map[string]int64 // answers by the layer that gave them
	first    *firstSecond     // the requests that arrived in the sale's first second
	retries  int64
	rounds   quorumRounds
	fair     Fairness
	window   []grant // grants since the last publish, for the fairness figure
	dirty    bool    // observed since the last successful publish
	seeded   bool    // this replica's earlier row has been merged in
	evicted  bool    // dropped from the map; observers must look again
	lastSeen time.Time
}

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histLowestUS, histHighestUS, histSigFigs)
}

func newSaleState(strategy string) *saleState {
	return &saleState{strategy: strategy, latency: newHist(), lockWait: newHist(), critical: newHist(),
		outcomes: map[string]int64{}, layers: map[string]int64{}, first: newFirstSecond()}
}

// ObservePlace records one order attempt. Attempts on a sale that does not
// exist are left out of the live figures (Prometheus still counts them):
// the sale id comes from the URL, and a client trying random ids must not
// grow this map or the sale_stats table.
func (r *LiveRecorder) ObservePlace(o order.Observation) {
	if r.prom != nil {
		r.prom.ObservePlace(o)
	}
	if o.SaleID == 0 || o.Outcome == order.OutcomeNotFound {
		return
	}
	now := r.now()
	for {
		st := r.state(o.SaleID, o.Strategy)
		st.mu.Lock()
		if st.evicted { // lost a race with eviction: use the fresh state
			st.mu.Unlock()
			continue
		}
		st.record(o, now)
		st.mu.Unlock()
		return
	}
}

// state returns the sale's state, creating it on first sight.
func (r *LiveRecorder) state(saleID uint64, strategy string) *saleState {
	r.mu.RLock()
	st := r.sales[saleID]
	r.mu.RUnlock()
	if st != nil {
		return st
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st = r.sales[saleID]; st == nil {
		st = newSaleState(strategy)
		r.sales[saleID] = st
	}
	return st
}

// record adds o; the caller holds st.mu.
func (st *saleState) record(o order.Observation, now time.Time) {
	st.requests++
	st.outcomes[o.Outcome]++
	if o.Layer != "" {
		st.layers[o.Layer]++
	}
	st.retries += int64(o.Retries)
	if o.QuorumRounds > 0 {
		st.rounds = st.rounds.add(quorumRounds{Acquisitions: 1, Rounds: int64(o.QuorumRounds), Split: int64(o.SplitRounds)})
	}
	recordDuration(st.latency, o.Total)
	if inFirstSecond(o) {
		st.first.record(o)
	}
	if g, ok := newGrant(o.Arrived, o.Acquired); ok {
		recordDuration(st.lockWait, o.LockWait)
		recordDuration(st.critical, o.Critical)
		st.window = append(st.window, g)
		if len(st.window) >= maxWindow {
			st.fair = st.fair.Add(fairnessOf(st.window))
			st.window = st.window[:0]
		}
	}
	st.dirty, st.lastSeen = true, now
}

// recordDuration records d in microseconds, clamped into the histogram's
// range so that every observation is counted.
func recordDuration(h *hdrhistogram.Histogram, d time.Duration) {
	us := min(max(d.Microseconds(), histLowestUS), histHighestUS)
	_ = h.RecordValue(us) // cannot fail: us is in range
}

// snapshot returns the sales currently held.
func (r *LiveRecorder) snapshot() map[uint64]*saleState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[uint64]*saleState, len(r.sales))
	for id, st := range r.sales {
		out[id] = st
	}
	return out
}

// evictIfIdle drops st when it has nothing left to publish and has not been
// observed for idleAfter. The caller holds st.mu; lock order is st.mu then
// r.mu, and ObservePlace never holds r.mu while taking st.mu.
func (r *LiveRecorder) evictIfIdle(id uint64, st *saleState, now time.Time) {
	if st.dirty || now.Sub(st.lastSeen) < idleAfter {
		return
	}
	st.evicted = true
	r.mu.Lock()
	if r.sales[id] == st {
		delete(r.sales, id)
	}
	r.mu.Unlock()
}
