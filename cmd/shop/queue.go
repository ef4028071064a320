package main

import (
	"context"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/reconcile"
)

// expiryInterval is how often a replica looks for reservations past their
// pay_by: a unit goes back within about this long of its deadline.
const expiryInterval = 250 * time.Millisecond

// openQueue starts what runs behind the order flow: the reservations'
// expiry (every replica), and, with a default Redis, the async order mode
// (the queue, this replica's consumer in the group) and the reconciliation
// of the stocks kept in Redis.
func (r *replica) openQueue(ctx context.Context, store *inventory.Store) error {
	bg := context.WithoutCancel(ctx) // until close, not the signal: in-flight work finishes first
	unitsBack := func(saleID uint64) {
		cctx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		r.soldOut.Clear(cctx, saleID)
	}
	r.orders.OnUnitsBack = unitsBack
	r.queueLoops = append(r.queueLoops, startLoop(bg, func(ctx context.Context) {
		r.orders.RunExpiry(ctx, expiryInterval, r.metrics.ObserveExpired)
	}))
	rdb := r.backends.Redis
	if rdb == nil {
		return nil
	}
	q := orderqueue.New(rdb, r.db.Migrator().CurrentDatabase())
	r.orders.UseQueue(q)
	consumer, err := orderqueue.NewConsumer(orderqueue.ConsumerConfig{Name: r.cfg.ReplicaID, SaleKey: r.orders.LockKey,
		Faults: r.faultHooks(), Persist: order.QueueCommit(store, r.cfg.ReplicaID, r.faultHooks())},
		q, store, r.metrics, r.log)
	if err != nil {
		return err
	}
	consumer.OnUnitsBack = unitsBack
	r.faults.UseConsumer()
	r.metrics.QueueGauges(func() (int64, int64) {
		cctx, cancel := context.WithTimeout(bg, time.Second)
		defer cancel()
		f, err := q.StreamFigures(cctx)
		if err != nil {
			return -1, -1
		}
		return f.Length, f.Pending
	})
	r.queueLoops = append(r.queueLoops, startLoop(bg, consumer.Run), startLoop(bg, reconcile.Job{
		DB: r.db, Redis: rdb, Lockers: r.lockers, SaleKey: r.orders.LockKey, Owner: r.cfg.ReplicaID,
		Log: r.log, OnDrift: r.metrics.ObserveDrift}.Run))
	return nil
}
