package order

import (
	"context"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// lockFreeRoad sells each order with no lock: the strategy's stock write is
// safe by itself (db-optimistic's CAS, db-conditional's decrement).
type lockFreeRoad struct {
	s    *Service
	sale inventory.Sale
	lf   lockstrategy.LockFree
}

func (r lockFreeRoad) sell(ctx context.Context, p Purchase) (inventory.Order, figures, error) {
	o, f, err := placeLockFree(ctx, r.s.section(r.sale, p), r.lf)
	f.layer = LayerDatabase
	return o, f, err
}

// placeLockFree runs the section with the strategy's safe write and no
// lock, in one transaction; a CAS that lost its round retries inside it
// (criticalSection.take), up to MaxRetries rounds lost.
func placeLockFree(ctx context.Context, cs criticalSection, lf lockstrategy.LockFree) (inventory.Order, figures, error) {
	cs.kind = writeCAS
	if lf.StockWrite() == lockstrategy.WriteConditional {
		cs.kind = writeConditional
	}
	cs.cas = &casRounds{maxLost: lf.MaxRetries()}
	o, err := cs.inNewTx(ctx)
	return o, figures{retries: cs.cas.lost}, err
}
