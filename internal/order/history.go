package order

import (
	"time"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// recordHistory records one answered order request for the sale's
// linearizability check: ok with its order, sold_out, refused (a definite
// no that took nothing) or unknown (it may have taken a unit).
func (s *Service) recordHistory(saleID uint64, start time.Time, o inventory.Order, err error) {
	op := history.Op{SaleID: saleID, ReplicaID: s.cfg.ReplicaID, CallAt: start, ReturnAt: time.Now(),
		Outcome: historyOutcome(o, err)}
	if op.Outcome == history.OK {
		id := o.ID
		op.OrderID, op.StockLeft = &id, o.StockLeft
	}
	s.history.Record(op)
}

// historyOutcome sorts an answer for the check. A queued order (202) took
// its unit in Redis but is not an order yet: unknown, like every answer
// that may have left a write behind (the database or the lock's backend
// gone, the buyer gone, an unexpected error).
func historyOutcome(o inventory.Order, err error) string {
	switch OutcomeOf(err) {
	case OutcomeOK:
		if o.Status == inventory.StatusPending {
			return history.Unknown
		}
		return history.OK
	case OutcomeSoldOut:
		return history.SoldOut
	case OutcomeLockTimeout, OutcomeLimitReached, OutcomeConflict, OutcomeFenced, OutcomeLockLost,
		OutcomeNestedLock, OutcomeNotFound, OutcomeReloading, OutcomeDuplicate, OutcomeNotOwner:
		return history.Refused
	}
	return history.Unknown
}
