package order

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Combining (合并请求, flat combining): on a sale with Combine on, the
// buyers of that sale waiting on this replica for its lock are served
// together. The first buyer to find nobody serving starts a server
// goroutine; it gathers the waiting buyers (up to CombineMaxBatch, for at
// most CombineMaxWaitUS), takes the lock once, sells the batch in one
// transaction (batch.go), unlocks, answers each buyer with its own order or
// refusal, and goes on while buyers wait. Buyers who arrive while a batch
// holds the lock form the next batch.

// combiner is one sale's waiting buyers on this replica.
type combiner struct {
	mu      sync.Mutex
	waiting []*batchBuyer
	serving bool          // a server goroutine runs for this sale
	full    chan struct{} // signalled when a batch's worth is waiting
}

// batchBuyer is one buyer in a combiner: its purchase, when it arrived,
// and where its answer goes.
type batchBuyer struct {
	p       Purchase
	arrived time.Time
	taken   bool // in a batch being sold: its answer will come
	answer  chan batchAnswer
}

// batchAnswer is one buyer's answer from its batch.
type batchAnswer struct {
	o   inventory.Order
	f   figures
	err error
}

// combinerOf is sale saleID's combiner on this replica.
func (s *Service) combinerOf(saleID uint64) *combiner {
	if c, ok := s.combiners.Load(saleID); ok {
		return c.(*combiner)
	}
	c, _ := s.combiners.LoadOrStore(saleID, &combiner{full: make(chan struct{}, 1)})
	return c.(*combiner)
}

// placeCombined queues the purchase in its sale's combiner and waits for
// its batch's answer. A buyer who leaves before its batch is taken leaves
// the queue; once taken, it waits for the answer (bounded by the lock wait
// and the transaction), so that what is recorded is what was written.
func (s *Service) placeCombined(ctx context.Context, sale inventory.Sale, p Purchase, locker lockstrategy.Locker) (inventory.Order, figures, error) {
	c := s.combinerOf(sale.ID)
	b := &batchBuyer{p: p, arrived: time.Now(), answer: make(chan batchAnswer, 1)}
	c.mu.Lock()
	c.waiting = append(c.waiting, b)
	start := !c.serving
	c.serving = true
	if len(c.waiting) >= sale.CombineMaxBatch {
		select {
		case c.full <- struct{}{}:
		default:
		}
	}
	c.mu.Unlock()
	if start {
		go s.serveCombined(c, sale, locker)
	}
	select {
	case a := <-b.answer:
		return a.o, a.f, a.err
	case <-ctx.Done():
	}
	c.mu.Lock()
	if !b.taken {
		c.remove(b)
		c.mu.Unlock()
		return inventory.Order{}, figures{lockWait: time.Since(b.arrived), layer: LayerLock}, ctx.Err()
	}
	c.mu.Unlock()
	a := <-b.answer
	return a.o, a.f, a.err
}

// CombineWaiting is the buyers of sale saleID waiting on this replica for
// a batch (not yet in one): what a test or a lesson watches fill up.
func (s *Service) CombineWaiting(saleID uint64) int {
	c, ok := s.combiners.Load(saleID)
	if !ok {
		return 0
	}
	cb := c.(*combiner)
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.waiting)
}

// remove takes b out of the waiting buyers; c.mu is held.
func (c *combiner) remove(b *batchBuyer) {
	for i, w := range c.waiting {
		if w == b {
			c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
			return
		}
	}
}

// serveCombined sells batches while buyers wait, then stops.
func (s *Service) serveCombined(c *combiner, sale inventory.Sale, locker lockstrategy.Locker) {
	for {
		batch := c.next(sale)
		if batch == nil {
			return
		}
		s.sellBatch(sale, locker, batch)
	}
}

// next gathers the next batch: it waits up to the sale's CombineMaxWaitUS
// for a full batch, then takes up to CombineMaxBatch buyers. Nil when
// nobody waits (serving ends).
func (c *combiner) next(sale inventory.Sale) []*batchBuyer {
	c.mu.Lock()
	short := len(c.waiting) < sale.CombineMaxBatch
	c.mu.Unlock()
	if wait := time.Duration(sale.CombineMaxWaitUS) * time.Microsecond; short && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-c.full:
		case <-t.C:
		}
		t.Stop()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := min(len(c.waiting), sale.CombineMaxBatch)
	if n == 0 {
		c.serving = false
		return nil
	}
	batch := make([]*batchBuyer, n)
	copy(batch, c.waiting)
	c.waiting = append(c.waiting[:0:0], c.waiting[n:]...)
	for _, b := range batch {
		b.taken = true
	}
	select { // a stale "full" from this batch must not cut the next one's wait short
	case <-c.full:
	default:
	}
	return batch
}

// sellBatch sells batch under one acquisition of the sale's lock and
// answers each buyer: its own order or refusal, or, when the batch failed
// whole (the lock not taken, a stale token, the database), the batch's
// error.
func (s *Service) sellBatch(sale inventory.Sale, locker lockstrategy.Locker, batch []*batchBuyer) {
	b := &saleBatch{buyers: make([]Purchase, len(batch)), answers: make([]batchResult, len(batch))}
	for i, w := range batch {
		b.buyers[i] = w.p
	}
	cs := criticalSection{sale: sale, replica: s.cfg.ReplicaID, db: s.store.DB(), batch: b}
	ctx := context.Background()
	_, f, err := s.placeLocked(ctx, cs, locker)
	if errors.Is(err, ErrFenced) {
		s.countFenced(ctx, sale.ID) // one stale write, refused for the whole batch
	}
	for i, w := range batch {
		bf := f
		if !f.acquired.IsZero() {
			bf.lockWait = f.acquired.Sub(w.arrived)
		} else {
			bf.lockWait = time.Since(w.arrived)
		}
		a := batchAnswer{f: bf, err: err}
		if err == nil || b.decided {
			a.o, a.err = b.answers[i].o, b.answers[i].err
		}
		w.answer <- a
	}
}
