package main

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
	histMinUS   = 1
	histMaxUS   = int64(10 * time.Minute / time.Microsecond)
	histSigFigs = 3
)

// recShards is how many parts a recorder is split into: worker w records
// into part w mod recShards, so that workers on different cores rarely meet
// on one lock. Not one per worker: a histogram at 3 significant digits
// weighs ~160 KB, and an open run may have a thousand workers.
const recShards = 8

// firstSecond is the length of the window after a herd's opening that the
// report singles out: the herd arrives in it.
const firstSecond = time.Second

// recorder collects the outcome, layer and latency of every request.
type recorder struct {
	shards [recShards]recShard
	// opening, when set (a herd), makes the recorder keep the figures of
	// the answers received in the first second after it apart.
	opening time.Time
	// done and orders (201s and 202s) are read live by the progress display.
	done   atomic.Int64
	orders atomic.Int64
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
	hist   *hdrhistogram.Histogram // microseconds
	kinds  map[string]int64
	layers map[string]int64
}

func newTally() tally {
	return tally{hist: hdrhistogram.New(histMinUS, histMaxUS, histSigFigs), kinds: map[string]int64{}, layers: map[string]int64{}}
}

func (t *tally) add(us int64, a shopapi.Answer) {
	_ = t.hist.RecordValue(us)
	t.kinds[a.Kind]++
	t.layers[a.Layer]++
}

// merge adds o into t.
func (t *tally) merge(o tally) {
	t.hist.Merge(o.hist)
	for k, n := range o.kinds {
		t.kinds[k] += n
	}
	for k, n := range o.layers {
		t.layers[k] += n
	}
}

func newRecorder() *recorder {
	r := &recorder{}
	for i := range r.shards {
		r.shards[i].all = newTally()
	}
	return r
}

// newHerdRecorder is a recorder that keeps the first second after opening apart.
func newHerdRecorder(opening time.Time) *recorder {
	r := newRecorder()
	r.opening = opening
	for i := range r.shards {
		r.shards[i].first = newTally()
	}
	return r
}

// clampUS is d in whole microseconds within the histogram's range:
// RecordValue refuses values out of range, and a request must not be lost.
func clampUS(d time.Duration) int64 { return min(max(d.Microseconds(), histMinUS), histMaxUS) }

// record counts one finished request of worker w: its answer, its latency
// (as the model measures it), when it was sent and when answered. In the
// first second after a herd's opening, the latency kept apart is the one
// from the send: how long the shop took under the herd.
func (r *recorder) record(w int, a shopapi.Answer, latency time.Duration, sent, answered time.Time) {
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
	r.done.Add(1)
	if a.Kind == shopapi.KindOrder || a.Kind == shopapi.KindAccepted {
		r.orders.Add(1)
	}
}

// figures is a recorder's state merged across its shards.
type figures struct {
	all          tally
	first        *tally // nil unless a herd
	lastOrder    time.Time
	tickets      []string // of every 202, in no particular order
	lastAccepted time.Time
}

// figures merges the shards into new tallies.
func (r *recorder) figures() figures {
	f := figures{all: newTally()}
	if !r.opening.IsZero() {
		first := newTally()
		f.first = &first
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		f.all.merge(s.all)
		if f.first != nil {
			f.first.merge(s.first)
		}
		if s.lastOrder.After(f.lastOrder) {
			f.lastOrder = s.lastOrder
		}
		f.tickets = append(f.tickets, s.tickets...)
		if s.lastAccepted.After(f.lastAccepted) {
			f.lastAccepted = s.lastAccepted
		}
		s.mu.Unlock()
	}
	return f
}

// snapshot returns a copy of the histogram and the counts by kind.
func (r *recorder) snapshot() (*hdrhistogram.Histogram, map[string]int64) {
	f := r.figures()
	return f.all.hist, f.all.kinds
}
