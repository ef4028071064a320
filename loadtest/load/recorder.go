package load

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Latency histogram bounds, in microseconds: 1 µs to 10 min at 3 significant
// digits (0.1% error), well past any --timeout.
const (
	HistMinUS   = 1
	HistMaxUS   = int64(10 * time.Minute / time.Microsecond)
	HistSigFigs = 3
)

// recShards is how many parts a recorder is split into: worker w records
// into part w mod recShards, so that workers on different cores rarely meet
// on one lock. Not one per worker: a histogram at 3 significant digits
// weighs ~160 KB, and an open run may have a thousand workers.
const recShards = 8

// firstSecond is the length of the window after a herd's opening that the
// report singles out: the herd arrives in it.
const firstSecond = time.Second

// Recorder collects the outcome, layer and latency of every request.
type Recorder struct {
	shards [recShards]recShard
	// opening, when set (a herd), makes the recorder keep the figures of
	// the answers received in the first second after it apart.
	opening time.Time
	// Done and orders (201s and 202s) are read live by the progress display.
	Done   atomic.Int64
	Orders atomic.Int64
}

// recShard is one part of a recorder, under its own lock.
type recShard struct {
	mu        sync.Mutex
	all       tally
	first     tally     // answered within firstSecond of the opening
	lastOrder time.Time // the latest 201 answer
	// The order tickets of the 202s (an async sale), and the latest one.
	tickets      []string
	lastAccepted time.Time
	_            [64]byte // keeps the next shard's lock off this one's cache line
}

// tally is the figures of a set of answers.
type tally struct {
	Hist   *hdrhistogram.Histogram // microseconds
	Kinds  map[string]int64
	Layers map[string]int64
}

func newTally() tally {
	return tally{Hist: hdrhistogram.New(HistMinUS, HistMaxUS, HistSigFigs), Kinds: map[string]int64{}, Layers: map[string]int64{}}
}

func (t *tally) add(us int64, a shopapi.Answer) {
	_ = t.Hist.RecordValue(us)
	t.Kinds[a.Kind]++
	t.Layers[a.Layer]++
}

// merge adds o into t.
func (t *tally) merge(o tally) {
	t.Hist.Merge(o.Hist)
	for k, n := range o.Kinds {
		t.Kinds[k] += n
	}
	for k, n := range o.Layers {
		t.Layers[k] += n
	}
}

func NewRecorder() *Recorder {
	r := &Recorder{}
	for i := range r.shards {
		r.shards[i].all = newTally()
	}
	return r
}

// NewHerdRecorder is a recorder that keeps the first second after opening apart.
func NewHerdRecorder(opening time.Time) *Recorder {
	r := NewRecorder()
	r.opening = opening
	for i := range r.shards {
		r.shards[i].first = newTally()
	}
	return r
}

// clampUS is d in whole microseconds within the histogram's range:
// RecordValue refuses values out of range, and a request must not be lost.
func clampUS(d time.Duration) int64 { return min(max(d.Microseconds(), HistMinUS), HistMaxUS) }

// Record counts one finished request of worker w: its answer, its latency
// (as the model measures it), when it was sent and when answered. In the
// first second after a herd's opening, the latency kept apart is the one
// from the send: how long the shop took under the herd.
func (r *Recorder) Record(w int, a shopapi.Answer, latency time.Duration, sent, answered time.Time) {
	if a.Layer == "" {
		a.Layer = shopapi.LayerUnknown
	}
	s := &r.shards[w%recShards]
	s.mu.Lock()
	s.all.add(clampUS(latency), a)
	if !r.opening.IsZero() && !answered.Before(r.opening) && answered.Sub(r.opening) < firstSecond {
		s.first.add(clampUS(answered.Sub(sent)), a)
	}
	if a.Kind == shopapi.KindOrder && answered.After(s.lastOrder) {
		s.lastOrder = answered
	}
	if a.Kind == shopapi.KindAccepted {
		if a.Ticket != "" {
			s.tickets = append(s.tickets, a.Ticket)
		}
		if answered.After(s.lastAccepted) {
			s.lastAccepted = answered
		}
	}
	s.mu.Unlock()
	r.Done.Add(1)
	if a.Kind == shopapi.KindOrder || a.Kind == shopapi.KindAccepted {
		r.Orders.Add(1)
	}
}

// figures is a recorder's state merged across its shards.
type figures struct {
	All          tally
	first        *tally // nil unless a herd
	lastOrder    time.Time
	Tickets      []string // of every 202, in no particular order
	LastAccepted time.Time
}

// figures merges the shards into new tallies.
func (r *Recorder) Figures() figures {
	f := figures{All: newTally()}
	if !r.opening.IsZero() {
		first := newTally()
		f.first = &first
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		f.All.merge(s.all)
		if f.first != nil {
			f.first.merge(s.first)
		}
		if s.lastOrder.After(f.lastOrder) {
			f.lastOrder = s.lastOrder
		}
		f.Tickets = append(f.Tickets, s.tickets...)
		if s.lastAccepted.After(f.LastAccepted) {
			f.LastAccepted = s.lastAccepted
		}
		s.mu.Unlock()
	}
	return f
}

// Snapshot returns a copy of the histogram and the counts by kind.
func (r *Recorder) Snapshot() (*hdrhistogram.Histogram, map[string]int64) {
	f := r.Figures()
	return f.All.Hist, f.All.Kinds
}
