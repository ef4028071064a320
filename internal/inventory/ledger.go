package inventory

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// Refusals of a Ledger; each caller answers them in its own terms.
var (
	// ErrKeyUsed means the buyer's idempotency key made an order already.
	ErrKeyUsed = errors.New("inventory: the idempotency key made an order already")
	// ErrLimitReached means the buyer has the sale's per-user limit of orders.
	ErrLimitReached = errors.New("inventory: the buyer's per-user limit is reached")
)

// Buyer is one buyer a Ledger decides: its user id, its idempotency key
// ("" for none) and, for the queue and the group commit, the ticket of the
// unit it was given ("" for none).
type Buyer struct {
	UserID, Key, Ticket string
}

// LedgerReads says which of a batch's tickets a Ledger reads besides the
// buyers' keys and counts.
type LedgerReads struct {
	Confirmed bool // tickets already orders (a queue entry delivered again)
	Failed    bool // tickets already failed (reclaimed, or refused before)
}

// Ledger decides a batch of buyers in arrival order, the checks of one
// order made for many: a repeated idempotency key, the per-user limit, the
// stock, in that order. It is read once, where nothing else can write the
// sale's orders meanwhile (under the sale's lock, or holding its row), and
// counts each buyer it lets through, so that a key or a buyer repeated
// inside the batch is refused as the database would refuse it. Combining's
// batches, the group commit of redis-lua-stock and the queue's consumer
// decide with it.
type Ledger struct {
	limit     int64
	keys      map[[2]string]bool // (user, key) pairs that made an order
	orders    map[string]int64   // orders per buyer (with a limit only)
	left      int64              // units left
	confirmed map[string]bool    // tickets that are orders, or met in this batch
	failed    map[string]string  // ticket -> the reason it failed
}

// NewLedger is a Ledger that knows nothing yet of the database: stock
// units left and limit orders per buyer (0: none).
func NewLedger(stock int64, limit int) *Ledger {
	return &Ledger{limit: int64(limit), keys: map[[2]string]bool{}, orders: map[string]int64{}, left: stock,
		confirmed: map[string]bool{}, failed: map[string]string{}}
}

// LoadLedger reads, in one query each, which of the buyers' keys already
// made an order of the sale, (with a per-user limit) how many orders each
// buyer has, and the tickets reads asks for; stock is the units left, read
// by the caller.
func LoadLedger(ctx context.Context, tx *gorm.DB, sale Sale, buyers []Buyer, stock int64, reads LedgerReads) (*Ledger, error) {
	l := NewLedger(stock, sale.PerUserLimit)
	var keys, tickets []string
	users := make([]string, 0, len(buyers))
	for _, b := range buyers {
		users = append(users, b.UserID)
		if b.Key != "" {
			keys = append(keys, b.Key)
		}
		tickets = append(tickets, b.Ticket)
	}
	if err := l.loadTickets(ctx, tx, tickets, reads); err != nil {
		return l, err
	}
	if l.limit > 0 {
		var err error
		if l.orders, err = CountUsersOrders(ctx, tx, sale.ID, users); err != nil {
			return l, err
		}
	}
	if len(keys) > 0 {
		pairs, err := KeysUsed(ctx, tx, sale.ID, keys)
		if err != nil {
			return l, err
		}
		for _, p := range pairs {
			l.keys[p] = true
		}
	}
	return l, nil
}

func (l *Ledger) loadTickets(ctx context.Context, tx *gorm.DB, tickets []string, reads LedgerReads) error {
	if reads.Confirmed {
		done, err := TicketsOrdered(ctx, tx, tickets)
		if err != nil {
			return err
		}
		for _, t := range done {
			l.confirmed[t] = true
		}
	}
	if reads.Failed {
		failed, err := TicketsFailed(ctx, tx, tickets)
		if err != nil {
			return err
		}
		for t, reason := range failed {
			l.failed[t] = reason
		}
	}
	return nil
}

// Failed is the reason ticket failed before this batch; "" if it did not.
func (l *Ledger) Failed(ticket string) string { return l.failed[ticket] }

// Settle says what is already known of ticket: confirmed (an order, or met
// before in this batch), or the reason it failed. Neither: this is its
// first sight, and it is noted, so that a ticket twice in one batch (an
// entry reclaimed and read again) is one order.
func (l *Ledger) Settle(ticket string) (confirmed bool, failed string) {
	if l.confirmed[ticket] {
		return true, ""
	}
	if r := l.failed[ticket]; r != "" {
		return false, r
	}
	l.confirmed[ticket] = true
	return false, ""
}

// Take says why buyer b gets no unit (ErrKeyUsed, ErrLimitReached,
// ErrSoldOut, checked in that order); nil: it gets one, and is counted (its
// key used, its orders and the units left moved).
func (l *Ledger) Take(b Buyer) error {
	key := [2]string{b.UserID, b.Key}
	switch {
	case b.Key != "" && l.keys[key]:
		return ErrKeyUsed
	case l.limit > 0 && l.orders[b.UserID] >= l.limit:
		return ErrLimitReached
	case l.left <= 0:
		return ErrSoldOut
	}
	if b.Key != "" {
		l.keys[key] = true
	}
	if l.limit > 0 {
		l.orders[b.UserID]++
	}
	l.left--
	return nil
}

// GiveBack undoes the Take that let b through: its unit, its count and its
// key are the ledger's again (the database refused b's row after all).
func (l *Ledger) GiveBack(b Buyer) {
	if b.Key != "" {
		delete(l.keys, [2]string{b.UserID, b.Key})
	}
	if l.limit > 0 {
		l.orders[b.UserID]--
	}
	l.left++
}
