package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// figures are what one order's path measured, for its Observation.
type figures struct {
	lockWait time.Duration // 0 where the strategy takes no lock
	acquired time.Time     // when the lock was held; zero if it never was
	critical time.Duration // from lock held to just before unlock
	retries  int           // CAS rounds lost
	rounds   int           // quorum rounds of the acquisition (redlock), the winning one included
	split    int           // of which failed with split votes
	layer    string        // which layer answered: LayerLock, LayerDatabase, LayerStore
}

// Purchase is one buyer's order: the sale, the buyer and, when the buyer
// sent one, the idempotency key that makes a retried request unable to
// make a second order (ErrDuplicateRequest).
type Purchase struct {
	SaleID         uint64
	UserID         string
	IdempotencyKey string
}

// Place buys one unit of sale saleID for userID.
func (s *Service) Place(ctx context.Context, saleID uint64, userID string) (inventory.Order, error) {
	o, _, err := s.Buy(ctx, Purchase{SaleID: saleID, UserID: userID})
	return o, err
}

// Buy is Place for a Purchase; it also says which layer answered. A buyer
// buyer.Check refuses (an id the database would fold into another) is
// refused here, before any road: the error matches buyer.ErrInvalid and
// nothing is written or recorded.
func (s *Service) Buy(ctx context.Context, p Purchase) (inventory.Order, string, error) {
	if err := buyer.Check(p.UserID, p.IdempotencyKey); err != nil {
		return inventory.Order{}, "", err
	}
	start := time.Now()
	sale, err := s.Sale(ctx, p.SaleID)
	if err != nil {
		return inventory.Order{}, LayerDatabase, asDBUnavailable(err, "")
	}
	o, f, err := s.place(ctx, sale, p)
	err = asDBUnavailable(asRowContention(err), sale.Strategy)
	s.recordHistory(p.SaleID, start, o, err)
	if s.rec != nil {
		outcome := OutcomeOf(err)
		if err == nil && o.Status == inventory.StatusPending {
			outcome = OutcomeQueued
		}
		s.rec.ObservePlace(Observation{SaleID: p.SaleID, Strategy: sale.Strategy, Outcome: outcome,
			Arrived: start, Opening: sale.OpensAt, Acquired: f.acquired, Total: time.Since(start),
			LockWait: f.lockWait, Critical: f.critical, Retries: f.retries,
			QuorumRounds: f.rounds, SplitRounds: f.split, Layer: f.layer})
	}
	if errors.Is(err, ErrFenced) && !sale.Combine { // a batch counts its one stale write itself (sellBatch)
		s.countFenced(ctx, p.SaleID)
	}
	if err != nil && OutcomeOf(err) == OutcomeError {
		s.log.Error("order failed", "sale", p.SaleID, "strategy", sale.Strategy, "err", err)
	}
	return o, f.layer, err
}

// place sells p on sale's road (road.go).
func (s *Service) place(ctx context.Context, sale inventory.Sale, p Purchase) (inventory.Order, figures, error) {
	r, err := s.road(sale)
	if err != nil {
		return inventory.Order{}, figures{layer: LayerLock}, err
	}
	return r.sell(ctx, p)
}

// lockedRoad sells each order in its own critical section under the sale's
// lock. tokens: the strategy's leases carry fencing tokens; goesOn: its
// holder writes though its lease was lost (Strategy.GoesOnWhenLost).
type lockedRoad struct {
	s      *Service
	sale   inventory.Sale
	locker lockstrategy.Locker
	tokens bool
	goesOn bool
}

func (r lockedRoad) sell(ctx context.Context, p Purchase) (inventory.Order, figures, error) {
	return r.s.placeLocked(ctx, r.s.section(r.sale, p), r)
}

// placeLocked is the critical section under the sale's lock: lock, claim
// the fence, then read, check, work, write and insert in one transaction,
// record the section, unlock.
func (s *Service) placeLocked(ctx context.Context, cs criticalSection, r lockedRoad) (o inventory.Order, f figures, err error) {
	waitStart := time.Now()
	// The order is the holder: a reentrant lock (redisson) knows a nested
	// Lock of the same order by it.
	ctx = lockstrategy.WithHolder(ctx, lockstrategy.NewOwner())
	ctx = s.observeLeases(ctx, cs.sale.ID)
	lease, err := s.lock(ctx, r.locker, s.LockKey(cs.sale.ID))
	f = figures{lockWait: time.Since(waitStart), layer: LayerLock}
	if err != nil {
		return inventory.Order{}, f, err
	}
	f.acquired, f.layer = time.Now(), LayerDatabase
	if q, ok := lease.(lockstrategy.QuorumRounds); ok {
		f.rounds, f.split = q.QuorumRounds()
	}
	defer func() { s.leave(ctx, cs.sale, lease, waitStart, f.acquired, cs.batch, &o, &err) }()
	if d := faultpoint.Nest(s.cfg.Faults); d > 0 {
		inner, err := s.lockAgain(ctx, r.locker, s.LockKey(cs.sale.ID), d)
		if err != nil {
			return inventory.Order{}, f, err
		}
		defer s.unlockQuietly(ctx, cs.sale, inner)
	}
	cs.lease, cs.token, cs.goesOn = lease, lease.Token(), r.goesOn
	if cs.sale.Fencing && cs.token > 0 {
		cs.kind = writeFenced
	}
	if cs.sale.Fencing && cs.token == 0 && r.tokens {
		// A lock that promises fencing tokens gave none: writing unfenced
		// would be the lost update fencing exists to stop (redisson once
		// answered token 0 from a lock in its last millisecond).
		return inventory.Order{}, f, fmt.Errorf("%w: %s", ErrNoFenceToken, cs.sale.Strategy)
	}
	o, err = cs.underLease(ctx)
	f.critical = time.Since(f.acquired)
	return o, f, err
}

// lock takes the sale's lock within Config.LockWait.
func (s *Service) lock(ctx context.Context, locker lockstrategy.Locker, key string) (lockstrategy.Lease, error) {
	lockCtx, cancel := context.WithTimeout(ctx, s.cfg.LockWait)
	defer cancel()
	lease, err := locker.Lock(lockCtx, key)
	switch {
	case err == nil:
		return lease, nil
	case ctx.Err() != nil:
		return nil, ctx.Err() // the buyer left; not a timeout of ours
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lockstrategy.ErrNotAcquired):
		return nil, fmt.Errorf("%w: %w", ErrLockTimeout, err)
	case errors.Is(err, lockstrategy.ErrNotOwner):
		return nil, fmt.Errorf("%w: %w", ErrNotOwner, err)
	}
	return nil, fmt.Errorf("order: lock: %w", asBackendDown(err))
}

// lockAgain is the nested Lock of the reentrancy lesson: the same holder
// (ctx), the same key, at most d.
func (s *Service) lockAgain(ctx context.Context, locker lockstrategy.Locker, key string, d time.Duration) (lockstrategy.Lease, error) {
	nctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	inner, err := locker.Lock(nctx, key)
	switch {
	case err == nil:
		return inner, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, lockstrategy.ErrNotAcquired):
		return nil, fmt.Errorf("%w: waited %v for the lock it holds", ErrNestedLock, d)
	}
	return nil, fmt.Errorf("order: nested lock: %w", asBackendDown(err))
}

// unlockQuietly releases a nested holding on a fresh bounded ctx.
func (s *Service) unlockQuietly(ctx context.Context, sale inventory.Sale, le lockstrategy.Lease) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if err := le.Unlock(uctx); err != nil {
		s.log.Warn("nested unlock", "sale", sale.ID, "strategy", sale.Strategy, "err", err)
	}
}

// leave ends a locked section: it ends a lock's transaction (endLeaseTx),
// unlocks on a fresh bounded ctx (the request's may be gone; the lock must
// go too), then records the section, with the order it made and how it
// ended, for violation detection and the timeline. Deferred, so that the
// lock goes even if the section panics. The section's exit is taken before
// the lock goes: a next holder can only enter after it.
func (s *Service) leave(ctx context.Context, sale inventory.Sale, lease lockstrategy.Lease, wait, enter time.Time,
	batch *saleBatch, o *inventory.Order, err *error) {
	exit := time.Now()
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if tl, inTx := lease.(lockstrategy.TxLease); inTx {
		s.endLeaseTx(ctx, tl, o, err)
	}
	if uerr := lease.Unlock(uctx); uerr != nil {
		s.log.Warn("unlock", "sale", sale.ID, "strategy", sale.Strategy, "err", uerr)
	}
	section := sectionlog.Section{SaleID: sale.ID, ReplicaID: s.cfg.ReplicaID, Token: lease.Token(),
		WaitAt: &wait, EnterAt: enter, ExitAt: exit, Outcome: sectionOutcome(*err)}
	if *err == nil && o.ID != 0 {
		id := o.ID
		section.OrderID = &id
	}
	if batch != nil {
		section.BatchBuyers = len(batch.buyers)
		if *err == nil {
			section.BatchOrders = batch.orders
		}
	}
	s.sections.Record(section)
}

// endLeaseTx ends the transaction a lock lives in (db-pessimistic), which
// the lock handed to the section: COMMIT when the section succeeded, which
// makes the order and frees the lock in one step, else ROLLBACK. A COMMIT
// that fails is the order failing (*o, *err): the buyer is told the
// database did not answer, never 201 for a row rolled back.
func (s *Service) endLeaseTx(ctx context.Context, tl lockstrategy.TxLease, o *inventory.Order, err *error) {
	if *err != nil {
		tl.Tx().Rollback()
		return
	}
	faultpoint.BeforeCommit(ctx, s.cfg.Faults)
	if cerr := tl.Tx().Commit().Error; cerr != nil {
		*o, *err = inventory.Order{}, fmt.Errorf("order: commit: %w", cerr)
	}
}

// sectionOutcome names how a critical section that ended in err ended.
func sectionOutcome(err error) string {
	switch OutcomeOf(err) {
	case OutcomeOK:
		return sectionlog.OutcomeCommitted
	case OutcomeFenced:
		return sectionlog.OutcomeFenced
	case OutcomeLockLost:
		return sectionlog.OutcomeLockLost
	case OutcomeSoldOut:
		return sectionlog.OutcomeSoldOut
	case OutcomeLimitReached:
		return sectionlog.OutcomeLimitReached
	case OutcomeCanceled, OutcomeNestedLock:
		return sectionlog.OutcomeGaveUp
	case OutcomeConflict, OutcomeDuplicate:
		return sectionlog.OutcomeRolledBack
	}
	if errors.Is(err, ErrNoFenceToken) {
		return sectionlog.OutcomeRolledBack
	}
	return sectionlog.OutcomeError
}

// countFenced counts a write rejected by its fence, on a fresh bounded ctx.
func (s *Service) countFenced(ctx context.Context, saleID uint64) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if err := s.store.CountFenced(cctx, saleID); err != nil {
		s.log.Error("counting a fenced write", "sale", saleID, "err", err)
	}
}
