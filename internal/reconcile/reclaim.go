package reconcile

import (
	"context"
	"errors"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Reclaim settles sale saleID's units taken for synchronous orders that
// stayed in flight past reserved.Stale (their replica died
// between taking the unit and settling it): a unit whose order is a row
// is sold and leaves the in-flight set; any other goes back on sale. The
// decision is made in the database first, holding the sale's row
// (inventory.ReclaimTickets: no order of a reclaimed unit can commit after
// it), then carried out in Redis, where a ticket is settled once: a
// reclaim that dies half-way is finished by the next, and one racing the
// unit's own replica gives the unit back once. It returns how many units
// it settled. A queued order's unit stuck past reserved.QueuedStale is
// settled the same way (failed as inventory.ReasonStuck); its stream entry,
// if the consumers ever read it, then finds its ticket settled.
func Reclaim(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64) (int, error) {
	snap, err := st.Snapshot(ctx, key)
	if err != nil {
		return 0, err
	}
	n, err := reclaim(ctx, db, st, key, saleID, snap.Stale, inventory.ReasonAbandoned)
	if err != nil {
		return n, err
	}
	m, err := reclaim(ctx, db, st, key, saleID, snap.StaleQueued, inventory.ReasonStuck)
	return n + m, err
}

// reclaim settles tickets, recording those that are no order as failed
// with reason.
func reclaim(ctx context.Context, db *gorm.DB, st Store, key string, saleID uint64, tickets []string, reason string) (int, error) {
	if len(tickets) == 0 {
		return 0, nil
	}
	sold, giveBack, err := inventory.ReclaimTickets(ctx, db, saleID, tickets, reason)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, t := range sold {
		errs = append(errs, st.Settled(ctx, key, lockstrategy.Reservation{Ticket: t}))
	}
	for _, t := range giveBack {
		errs = append(errs, st.Unreserve(ctx, key, lockstrategy.Reservation{Ticket: t}))
	}
	return len(sold) + len(giveBack), errors.Join(errs...)
}
