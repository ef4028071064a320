// Package gather runs concurrent calls of one key as batches: the calls
// that arrive while a key's batch is gathering (at most MaxWait after the
// first, at most MaxBatch of them) or while its previous batch runs are
// handed to one Run, which answers each. One batch runs per key at a time;
// a key with nothing waiting holds no goroutine.
//
// It is the group commit of redis-lua-stock (many reserved units persisted
// in one transaction), the queue's accept (one script call for many
// buyers) and combining (the buyers waiting for one sale's lock sold under
// one acquisition): one round trip shared by many callers instead of one
// each.
package gather

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Result is one call's answer.
type Result[R any] struct {
	Value R
	Err   error
}

// Gatherer batches the calls of each key K; items T, answers R.
type Gatherer[K comparable, T, R any] struct {
	// MaxBatch is the most calls one Run gets; 1 or less runs every call
	// alone, at once.
	MaxBatch int
	// MaxWait is the longest the first call of a batch waits for others
	// before its batch runs (a batch that filled up runs at once).
	MaxWait time.Duration
	// Run answers a batch: one Result per item, in the items' order. It
	// must return; a call that left before its batch was taken is not in it.
	Run func(key K, items []T) []Result[R]

	mu    sync.Mutex
	lanes map[K]*lane[T, R]
}

// call is one waiting caller.
type call[T, R any] struct {
	item T
	done chan struct{}
	res  Result[R]
}

// lane is one key's waiting calls and whether a leader runs them.
type lane[T, R any] struct {
	pending []*call[T, R]
	running int // calls in the batch running now
	leading bool
	full    chan struct{} // a batch's worth waits: stop gathering
}

// Do runs item in a batch of key and answers its Result. A caller whose ctx
// ends while its item is still waiting leaves with ctx's error; once its
// batch runs, it waits for its answer (Run is bounded by its own means).
func (g *Gatherer[K, T, R]) Do(ctx context.Context, key K, item T) (R, error) {
	if g.MaxBatch <= 1 {
		r := g.Run(key, []T{item})[0]
		return r.Value, r.Err
	}
	c := &call[T, R]{item: item, done: make(chan struct{})}
	g.mu.Lock()
	if g.lanes == nil {
		g.lanes = map[K]*lane[T, R]{}
	}
	l := g.lanes[key]
	if l == nil {
		l = &lane[T, R]{full: make(chan struct{}, 1)}
		g.lanes[key] = l
	}
	l.pending = append(l.pending, c)
	if len(l.pending) >= g.MaxBatch {
		select {
		case l.full <- struct{}{}:
		default:
		}
	}
	lead := !l.leading
	l.leading = true
	g.mu.Unlock()
	if lead {
		go g.lead(key, l)
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		if g.withdraw(l, c) {
			var zero R
			return zero, ctx.Err()
		}
		<-c.done // taken into a batch already: its answer is on the way
	}
	return c.res.Value, c.res.Err
}

// Waiting is the calls of key waiting for a batch (not yet in one), and
// those in the batch running now.
func (g *Gatherer[K, T, R]) Waiting(key K) (waiting, running int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if l := g.lanes[key]; l != nil {
		return len(l.pending), l.running
	}
	return 0, 0
}

// withdraw takes c out of l's waiting calls; false if a batch took it.
func (g *Gatherer[K, T, R]) withdraw(l *lane[T, R], c *call[T, R]) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, p := range l.pending {
		if p == c {
			l.pending = append(l.pending[:i:i], l.pending[i+1:]...)
			return true
		}
	}
	return false
}

// lead runs key's batches until none waits: the first after gathering for
// MaxWait (or until full), the next ones at once, since their calls waited
// while the previous batch ran.
func (g *Gatherer[K, T, R]) lead(key K, l *lane[T, R]) {
	g.gatherFor(l)
	for {
		g.mu.Lock()
		n := min(len(l.pending), g.MaxBatch)
		if n == 0 {
			l.leading = false
			if g.lanes[key] == l {
				delete(g.lanes, key)
			}
			g.mu.Unlock()
			return
		}
		batch := make([]*call[T, R], n)
		copy(batch, l.pending)
		l.pending = append(l.pending[:0:0], l.pending[n:]...)
		select { // a full signal of the batch just taken is spent
		case <-l.full:
		default:
		}
		l.running = n
		g.mu.Unlock()
		g.runBatch(key, batch)
		g.mu.Lock()
		l.running = 0
		g.mu.Unlock()
	}
}

// gatherFor waits MaxWait, or less if a full batch waits.
func (g *Gatherer[K, T, R]) gatherFor(l *lane[T, R]) {
	if g.MaxWait <= 0 {
		return
	}
	t := time.NewTimer(g.MaxWait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.full:
	}
}

// runBatch runs one batch and answers each call; a Run that panics or
// answers the wrong number of results fails the whole batch rather than
// leave its callers waiting forever.
func (g *Gatherer[K, T, R]) runBatch(key K, batch []*call[T, R]) {
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	var results []Result[R]
	func() {
		defer func() {
			if p := recover(); p != nil {
				results = nil
				for range batch {
					results = append(results, Result[R]{Err: fmt.Errorf("gather: batch panicked: %v", p)})
				}
			}
		}()
		results = g.Run(key, items)
	}()
	for i, c := range batch {
		if i < len(results) {
			c.res = results[i]
		} else {
			c.res = Result[R]{Err: fmt.Errorf("gather: batch of %d answered %d", len(batch), len(results))}
		}
		close(c.done)
	}
}
