package order

import (
	"context"
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/dberr"
	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// Combining (合并请求, flat combining): on a sale with Combine on, the
// buyers of that sale waiting on this replica for its lock are served
// together. Each sale has a gatherer (internal/gather): the first buyer to
// find nobody serving starts a batch, which gathers the waiting buyers (up
// to CombineMaxBatch, for at most CombineMaxWaitUS), takes the lock once,
// sells them in one transaction (batch.go), unlocks and answers each buyer
// with its own order or refusal. Buyers who arrive while a batch holds the
// lock form the next batch, which goes as soon as the lock is free.

// combinedRoad sells the buyers waiting on this replica for the sale's
// lock as batches, one acquisition each.
type combinedRoad struct{ lockedRoad }

func (r combinedRoad) sell(ctx context.Context, p Purchase) (inventory.Order, figures, error) {
	return r.s.placeCombined(ctx, r, p)
}

// batchBuyer is one buyer in a combined batch: its purchase, when it
// arrived (its lock wait runs from then), and its ctx's values and deadline,
// which travel with the batch to the goroutine that sells it (batchCtx).
type batchBuyer struct {
	p       Purchase
	arrived time.Time
	values  context.Context // the buyer's ctx without its cancellation
}

// batchAnswer is one buyer's answer from its batch.
type batchAnswer struct {
	o inventory.Order
	f figures
}

// combiner is sale's gatherer on this replica, made on its first order.
func (s *Service) combiner(r combinedRoad) *gather.Gatherer[uint64, batchBuyer, batchAnswer] {
	sale := r.sale
	if g, ok := s.combiners.Load(sale.ID); ok {
		return g.(*gather.Gatherer[uint64, batchBuyer, batchAnswer])
	}
	g := &gather.Gatherer[uint64, batchBuyer, batchAnswer]{
		MaxBatch: sale.CombineMaxBatch, // 1: each buyer alone, a batch of one
		MaxWait:  time.Duration(sale.CombineMaxWaitUS) * time.Microsecond,
		Run: func(_ uint64, batch []batchBuyer) []gather.Result[batchAnswer] {
			return s.sellBatch(r, batch)
		},
	}
	got, _ := s.combiners.LoadOrStore(sale.ID, g)
	return got.(*gather.Gatherer[uint64, batchBuyer, batchAnswer])
}

// placeCombined sends the purchase to its sale's combiner and waits for its
// batch's answer. A buyer who leaves before its batch is taken leaves the
// queue; once taken, it waits for the answer (bounded by the lock wait and
// the transaction), so that what is recorded is what was written.
func (s *Service) placeCombined(ctx context.Context, r combinedRoad, p Purchase) (inventory.Order, figures, error) {
	arrived := time.Now()
	a, err := s.combiner(r).Do(ctx, r.sale.ID, batchBuyer{p: p, arrived: arrived, values: context.WithoutCancel(ctx)})
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
func (s *Service) sellBatch(r combinedRoad, batch []batchBuyer) []gather.Result[batchAnswer] {
	out, err := s.sellOnce(r, batch)
	if len(batch) > 1 && dberr.IsRowRefused(err) {
		s.log.Warn("the database refused a combined batch's rows; selling its buyers one by one", "sale", r.sale.ID,
			"buyers", len(batch), "err", err)
		for i := range batch {
			one, _ := s.sellOnce(r, batch[i:i+1])
			out[i] = one[0]
		}
	}
	return out
}

// sellOnce is one acquisition of the lock for batch: each buyer's answer,
// and the section's error (nil when it committed).
func (s *Service) sellOnce(r combinedRoad, batch []batchBuyer) ([]gather.Result[batchAnswer], error) {
	b := &saleBatch{buyers: make([]Purchase, len(batch)), answers: make([]batchResult, len(batch))}
	for i, w := range batch {
		b.buyers[i] = w.p
	}
	cs := s.section(r.sale, Purchase{})
	cs.batch = b
	ctx, cancel := batchCtx(batch)
	defer cancel()
	_, f, err := s.placeLocked(ctx, cs, r.lockedRoad)
	if errors.Is(err, ErrFenced) {
		s.countFenced(ctx, r.sale.ID) // one stale write, refused for the whole batch
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

// batchCtx is the ctx a batch is sold in, on the gatherer's goroutine: the
// first buyer's values (a trace, a statement counter), as that buyer's own
// ctx would carry them, and the earliest deadline among the buyers' (none
// when no buyer has one). A buyer who hangs up does not cancel the batch:
// once taken, its answer is what was written.
func batchCtx(batch []batchBuyer) (context.Context, context.CancelFunc) {
	var deadline time.Time
	for _, w := range batch {
		if d, ok := w.values.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
			deadline = d
		}
	}
	if deadline.IsZero() {
		return context.WithCancel(batch[0].values)
	}
	return context.WithDeadline(batch[0].values, deadline)
}
