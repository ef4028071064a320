package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/buyer"
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
			LockWait: f.lockWait, Critical: f.critical, Retries: f.retries, Layer: f.layer})
	}
	if errors.Is(err, ErrFenced) && !sale.Combine { // a batch counts its one stale write itself (sellBatch)
		s.countFenced(ctx, p.SaleID)
	}
	if err != nil && OutcomeOf(err) == OutcomeError {
		s.log.Error("order failed", "sale", p.SaleID, "strategy", sale.Strategy, "err", err)
	}
	return o, f.layer, err
}

// place picks the sale's path once: a lock-free write, a reservation, or
// the critical section under a lock.
func (s *Service) place(ctx context.Context, sale inventory.Sale, p Purchase) (inventory.Order, figures, error) {
	inst, err := s.lockers.Get(sale.Strategy, LockOptions(sale))
	if err != nil {
		return inventory.Order{}, figures{layer: LayerLock}, err
	}
	if sale.OrderMode == inventory.OrderAsync {
		if inst.Reserver != nil && s.queue != nil {
			return s.placeQueued(ctx, sale, p, inst.Reserver)
		}
		return inventory.Order{}, figures{layer: LayerQueue}, fmt.Errorf("%w: strategy %s on this replica", ErrNoQueue, sale.Strategy)
	}
	cs := criticalSection{sale: sale, userID: p.UserID, replica: s.cfg.ReplicaID, db: s.store.DB()}
	if p.IdempotencyKey != "" {
		cs.idemKey = &p.IdempotencyKey
	}
	switch inst.Kind() {
	case lockstrategy.KindLockFree:
		o, f, err := placeLockFree(ctx, cs, inst.LockFree)
		f.layer = LayerDatabase
		return o, f, err
	case lockstrategy.KindReserve:
		o, layer, err := s.placeReserved(ctx, cs, inst.Reserver)
		return o, figures{layer: layer}, err
	}
	if sale.Combine && sale.CombineMaxBatch > 0 {
		return s.placeCombined(ctx, sale, p, inst.Locker)
	}
	return s.placeLocked(ctx, cs, inst.Locker)
}

// placeLocked is the critical section under the sale's lock: lock, claim
// the fence, then read, check, work, write and insert in one transaction,
// record the section, unlock.
func (s *Service) placeLocked(ctx context.Context, cs criticalSection, locker lockstrategy.Locker) (o inventory.Order, f figures, err error) {
	waitStart := time.Now()
	// The order is the holder: a reentrant lock (redisson) knows a nested
	// Lock of the same order by it.
	ctx = lockstrategy.WithHolder(ctx, lockstrategy.NewOwner())
	ctx = s.observeLeases(ctx, cs.sale.ID)
	lease, err := s.lock(ctx, locker, s.LockKey(cs.sale.ID))
	f = figures{lockWait: time.Since(waitStart), layer: LayerLock}
	if err != nil {
		return inventory.Order{}, f, err
	}
	f.acquired, f.layer = time.Now(), LayerDatabase
	defer func() { s.leave(ctx, cs.sale, lease, waitStart, f.acquired, cs.batch, &o, &err) }()
	if d := time.Duration(s.nestNext.Swap(0)); d > 0 {
		inner, err := s.lockAgain(ctx, locker, s.LockKey(cs.sale.ID), d)
		if err != nil {
			return inventory.Order{}, f, err
		}
		defer s.unlockQuietly(ctx, cs.sale, inner)
	}
	cs.lease, cs.token = lease, lease.Token()
	if cs.sale.Fencing && cs.token > 0 {
		cs.kind = writeFenced
	}
	if cs.sale.Fencing && cs.token == 0 && givesTokens(cs.sale.Strategy) {
		// A lock that promises fencing tokens gave none: writing unfenced
		// would be the lost update fencing exists to stop (redisson once
		// answered token 0 from a lock in its last millisecond).
		return inventory.Order{}, f, fmt.Errorf("%w: %s", ErrNoFenceToken, cs.sale.Strategy)
	}
	cs.stall, cs.stalled = time.Duration(s.pauseNext.Swap(0)), &s.paused
	cs.slowWork = time.Duration(s.workNext.Swap(0))
	o, err = cs.underLease(ctx)
	f.critical = time.Since(f.acquired)
	return o, f, err
}

// goesOnWhenLost says the strategy's holder writes though its lease was
// lost (Strategy.GoesOnWhenLost).
func goesOnWhenLost(strategy string) bool {
	s, err := lockstrategy.Lookup(strategy)
	return err == nil && s.GoesOnWhenLost
}

// givesTokens says the strategy's leases carry fencing tokens.
func givesTokens(strategy string) bool {
	s, err := lockstrategy.Lookup(strategy)
	return err == nil && s.Tokens
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

// leave ends a locked section: it unlocks on a fresh bounded ctx (the
// request's may be gone; the lock must go too), then records the section,
// with the order it made and how it ended, for violation detection and the
// timeline. Deferred, so that the lock goes even if the section panics.
// A lease that carries the order's transaction (db-pessimistic) commits on
// unlock: its COMMIT failing is the order failing (*o, *err), and the buyer
// is told the database did not answer, never 201 for a row rolled back.
func (s *Service) leave(ctx context.Context, sale inventory.Sale, lease lockstrategy.Lease, wait, enter time.Time,
	batch *saleBatch, o *inventory.Order, err *error) {
	exit := time.Now()
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	uerr := lease.Unlock(uctx)
	if uerr != nil {
		s.log.Warn("unlock", "sale", sale.ID, "strategy", sale.Strategy, "err", uerr)
	}
	if _, inTx := lease.(lockstrategy.TxLease); inTx && uerr != nil && *err == nil {
		*o, *err = inventory.Order{}, fmt.Errorf("order: commit: %w", uerr)
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

// reservePersistTimeout bounds the database half of a reserved order, so
// that a rebuild of a lost stock (lockstrategy.StockReloadSettle, longer)
// reads a database that counts every unit taken from the lost stock.
const reservePersistTimeout = lockstrategy.PersistBound

// placeReserved takes the unit from the strategy's own stock first (atomic
// in Redis), then persists it with a conditional DB decrement, in a batch
// with the other buyers' units of the sale (persistReserved); if that fails
// the unit goes back (giveBack), so that the two stocks agree. A lost stock
// is rebuilt by the one caller the strategy names.
func (s *Service) placeReserved(ctx context.Context, cs criticalSection, rs lockstrategy.Reserver) (inventory.Order, string, error) {
	key := s.LockKey(cs.sale.ID)
	r, ok, err := rs.Reserve(ctx, key)
	if err != nil {
		if errors.Is(err, lockstrategy.ErrStockReloadClaimed) {
			s.rebuildStock(cs.sale.ID, key, rs)
		}
		return inventory.Order{}, LayerStore, asBackendDown(err)
	}
	if !ok {
		return inventory.Order{}, LayerStore, ErrSoldOut
	}
	cs.kind, cs.reserved = writeReserved, r
	pctx, cancel := context.WithTimeout(ctx, reservePersistTimeout)
	o, err := s.persistReserved(pctx, cs)
	timedOut := pctx.Err() != nil && ctx.Err() == nil // our bound, not the buyer leaving
	cancel()
	if err != nil {
		if timedOut && !errors.Is(err, ErrPersistTimeout) {
			err = fmt.Errorf("%w: %w", ErrPersistTimeout, err)
		}
		return o, LayerDatabase, s.giveBack(ctx, rs, key, r, err)
	}
	s.settled(ctx, rs, key, r)
	return o, LayerDatabase, nil
}

// settled ends reservation r after its order committed, on a fresh bounded
// ctx. A failure leaves r counted in flight until a reconciliation repairs
// it; the order stands.
func (s *Service) settled(ctx context.Context, rs lockstrategy.Reserver, key string, r lockstrategy.Reservation) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if err := rs.Settled(uctx, key, r); err != nil {
		s.log.Warn("settling a reserved unit", "key", key, "ticket", r.Ticket, "err", err)
	}
}

// giveBack undoes reservation r after its order failed with err: the unit
// goes back (Unreserve), or, if the database had no unit left for it, the
// store's stock is above the truth and is zeroed instead (Overdrawn). On a
// fresh bounded ctx: the buyer may have hung up.
func (s *Service) giveBack(ctx context.Context, rs lockstrategy.Reserver, key string, r lockstrategy.Reservation, err error) error {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	undo := rs.Unreserve
	if errors.Is(err, errOverdrawn) {
		undo = rs.Overdrawn
		err = errors.Join(ErrSoldOut, err)
	}
	if uerr := undo(uctx, key, r); uerr != nil {
		err = errors.Join(err, uerr)
	}
	return err
}

// countFenced counts a write rejected by its fence, on a fresh bounded ctx.
func (s *Service) countFenced(ctx context.Context, saleID uint64) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.UnlockTimeout)
	defer cancel()
	if err := s.store.CountFenced(cctx, saleID); err != nil {
		s.log.Error("counting a fenced write", "sale", saleID, "err", err)
	}
}
