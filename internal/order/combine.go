package order

import (
	"context"
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Combining (合并请求, flat combining): on a sale with Combine on, the
// buyers of that sale waiting on this replica for its lock are served
// together. Each sale has a gatherer (internal/gather): the first buyer to
// find nobody serving starts a batch, which gathers the waiting buyers (up
// to CombineMaxBatch, for at most CombineMaxWaitUS), takes the lock once,
// sells them in one transaction (batch.go), unlocks and answers each buyer
// with its own order or refusal. Buyers who arrive while a batch holds the
// lock form the next batch, which goes as soon as the lock is free.

// batchBuyer is one buyer in a combined batch: its purchase and when it
// arrived (its lock wait runs from then).
type batchBuyer struct {
	p       Purchase
	arrived time.Time
}

// batchAnswer is one buyer's answer from its batch.
type batchAnswer struct {
	o inventory.Order
	f figures
}

// combiner is sale's gatherer on this replica, made on its first order.
func (s *Service) combiner(sale inventory.Sale, locker lockstrategy.Locker) *gather.Gatherer[uint64, batchBuyer, batchAnswer] {
	if g, ok := s.combiners.Load(sale.ID); ok {
		return g.(*gather.Gatherer[uint64, batchBuyer, batchAnswer])
	}
	g := &gather.Gatherer[uint64, batchBuyer, batchAnswer]{
		MaxBatch: sale.CombineMaxBatch, // 1: each buyer alone, a batch of one
		MaxWait:  time.Duration(sale.CombineMaxWaitUS) * time.Microsecond,
		Run: func(_ uint64, batch []batchBuyer) []gather.Result[batchAnswer] {
			return s.sellBatch(sale, locker, batch)
		},
	}
	got, _ := s.combiners.LoadOrStore(sale.ID, g)
	return got.(*gather.Gatherer[uint64, batchBuyer, batchAnswer])
}

// placeCombined sends the purchase to its sale's combiner and waits for its
// batch's answer. A buyer who leaves before its batch is taken leaves the
// queue; once taken, it waits for the answer (bounded by the lock wait and
// the transaction), so that what is recorded is what was written.
func (s *Service) placeCombined(ctx context.Context, sale inventory.Sale, p Purchase, locker lockstrategy.Locker) (inventory.Order, figures, error) {
	arrived := time.Now()
	a, err := s.combiner(sale, locker).Do(ctx, sale.ID, batchBuyer{p: p, arrived: arrived})
	if err != nil && a.f.layer == "" { // left before its batch was taken
		a.f = figures{lockWait: time.Since(arrived), layer: LayerLock}
	}
	return a.o, a.f, err
}

// CombineWaiting is the buyers of sale saleID on this replica waiting for
// a batch (not yet in one), and those in the batch being sold now: what a
// test or a lesson watches fill up.
func (s *Service) CombineWaiting(saleID uint64) (waiting, selling int) {
	g, ok := s.combiners.Load(saleID)
	if !ok {
		return 0, 0
	}
	return g.(*gather.Gatherer[uint64, batchBuyer, batchAnswer]).Waiting(saleID)
}

// sellBatch sells batch under one acquisition of the sale's lock and
// answers each buyer: its own order or refusal, or, when the batch failed
// whole (the lock not taken, a stale token, the database), the batch's
// error. A batch whose rows the database refused (a key taken, a value it
// cannot store: dberr.IsRowRefused) is sold again one buyer at a time, so
// that the refusal is the answer of the buyer whose row caused it only.
func (s *Service) sellBatch(sale inventory.Sale, locker lockstrategy.Locker, batch []batchBuyer) []gather.Result[batchAnswer] {
	out, err := s.sellOnce(sale, locker, batch)
	if len(batch) > 1 && dberr.IsRowRefused(err) {
		s.log.Warn("the database refused a combined batch's rows; selling its buyers one by one", "sale", sale.ID,
			"buyers", len(batch), "err", err)
		for i := range batch {
			one, _ := s.sellOnce(sale, locker, batch[i:i+1])
			out[i] = one[0]
		}
	}
	return out
}

// sellOnce is one acquisition of the lock for batch: each buyer's answer,
// and the section's error (nil when it committed).
func (s *Service) sellOnce(sale inventory.Sale, locker lockstrategy.Locker, batch []batchBuyer) ([]gather.Result[batchAnswer], error) {
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
	out := make([]gather.Result[batchAnswer], len(batch))
	for i, w := range batch {
		bf := f
		if !f.acquired.IsZero() {
			bf.lockWait = f.acquired.Sub(w.arrived)
		} else {
			bf.lockWait = time.Since(w.arrived)
		}
		a := gather.Result[batchAnswer]{Value: batchAnswer{f: bf}, Err: err}
		if err == nil || b.decided {
			a.Value.o, a.Err = b.answers[i].o, b.answers[i].err
		}
		out[i] = a
	}
	return out, err
}
