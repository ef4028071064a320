// Package inventory keeps sales and orders in MariaDB through gorm, and
// holds every statement on their tables (sales, orders, ticket_failures):
//
//   - model.go: the rows (Sale, Order, TicketFailure) and the views of a sale
//   - shards.go: split stock: a sale's shards, the buyer's home shard, the
//     one place that sums a sale's stock
//   - store.go: stock reads and writes (plain, versioned CAS, conditional,
//     fenced), inserting orders, a sale's truth from the database
//   - views.go, recent.go: many sales' views at once, the recent orders
//   - ledger.go: the Ledger, the buyer checks (key, limit, stock) of a batch
//   - tickets.go: a batch's row lock, its tickets' orders and failures
//   - reservations.go: paying and expiring reservations
//   - reclaim.go: giving back the units of tickets never settled
//   - reads.go, checks.go: the reads of the repairs, reports and checks
//   - open.go: opening the database
package inventory

import (
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/verdict"
)

// Sentinel errors of this package.
var (
	// ErrSaleNotFound means no sale has the given id.
	ErrSaleNotFound = errors.New("inventory: sale not found")
	// ErrVersionConflict means a CAS write found another version: retry.
	ErrVersionConflict = errors.New("inventory: version changed")
	// ErrFenced means a fenced write carried a token not newer than the sale's
	// fence: a stale lock holder tried to write.
	ErrFenced = errors.New("inventory: stale fencing token")
	// ErrSoldOut means the stock is zero.
	ErrSoldOut = errors.New("inventory: sold out")
)

// Sale is one flash sale: its stock, its strategy and the options of its
// critical section. The watchdog column defaults to on, but Go's zero value
// is off: code that builds a Sale for a renewing strategy sets Watchdog.
type Sale struct {
	ID           uint64 `gorm:"primaryKey" json:"id"`
	Name         string `json:"name"`
	Product      string `json:"product"` // what the shop page headlines; "" for "Flash sale #ID"
	Strategy     string `json:"strategy"`
	InitialStock int64  `json:"initial_stock"`
	Stock        int64  `json:"stock"`
	Version      int64  `json:"version"`
	Fence        uint64 `json:"fence"`
	WorkMS       int    `gorm:"column:work_ms" json:"work_ms"`
	TTLMS        int    `gorm:"column:ttl_ms" json:"ttl_ms"`
	Fencing      bool   `json:"fencing"`
	Watchdog     bool   `json:"watchdog"` // lease renewal (redis, redlock); off: expires at TTLMS while held
	PerUserLimit int    `json:"per_user_limit"`
	// NoQueue (redlock only) turns off redlock's defences against a herd:
	// every contender polls the masters itself (lockstrategy.Options.NoQueue).
	NoQueue bool `json:"no_queue"`
	// The flash sale's guards: orders before OpensAt are refused cheaply;
	// SoldOutCache answers sold out from memory once the stock reads 0;
	// RateLimitUser/IP are requests per second (0 = off); TicketRequired
	// asks every order for a signed purchase ticket.
	OpensAt        time.Time `json:"opens_at"`
	SoldOutCache   bool      `json:"sold_out_cache"`
	RateLimitUser  int       `json:"rate_limit_user"`
	RateLimitIP    int       `gorm:"column:rate_limit_ip" json:"rate_limit_ip"`
	TicketRequired bool      `json:"ticket_required"`
	// OrderMode is OrderSync (201 with the order) or OrderAsync (202 with an
	// order ticket; the order is persisted behind a queue). PayWithinMS > 0
	// makes every order a reservation to pay within that many ms.
	OrderMode   string `json:"order_mode"`
	PayWithinMS int    `gorm:"column:pay_within_ms" json:"pay_within_ms"`
	// Combine sells the orders waiting on one replica for the sale's lock
	// as one batch: one acquisition, one transaction, at most
	// CombineMaxBatch buyers, gathered for at most CombineMaxWaitUS before
	// the lock is asked for.
	Combine          bool `json:"combine"`
	CombineMaxBatch  int  `json:"combine_max_batch"`
	CombineMaxWaitUS int  `gorm:"column:combine_max_wait_us" json:"combine_max_wait_us"`
	// StockShards splits the stock into that many shards (库存分段), each
	// sold by its own row (db-conditional) or key (redis-lua-stock), so
	// that as many buyers take a unit at once; 1: one row, as always.
	StockShards int `json:"stock_shards"`
	// Drift is the last reconciliation of a stock kept in Redis against the
	// database (0: they agree), checked at ReconciledAt.
	Drift        int64      `json:"drift"`
	ReconciledAt *time.Time `json:"reconciled_at"`
	Status       string     `json:"status"`
	FencedWrites int64      `json:"fenced_writes"` // stale-token writes rejected (fencing on)
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// Order modes and order statuses.
const (
	OrderSync  = "sync"
	OrderAsync = "async"

	StatusReserved = "reserved" // to pay before PayBy
	StatusPaid     = "paid"     // paid, or made without a reservation
	StatusExpired  = "expired"  // not paid in time: its unit went back
	// StatusPending is never stored: the answer to an order queued (202),
	// whose row the queue's consumer makes.
	StatusPending = "pending"
)

// Order is one successful purchase.
type Order struct {
	// StockLeft is the stock this order's write left, when the write was
	// the stock read minus one (a lock, a fence or a CAS); nil otherwise.
	// Not stored with the order: the history check reads it.
	StockLeft  *int64 `gorm:"-" json:"-"`
	ID         uint64 `gorm:"primaryKey" json:"order_id"`
	SaleID     uint64 `json:"sale_id"`
	UserID     string `json:"user_id"`
	ReplicaID  string `json:"replica_id"`
	FenceToken uint64 `json:"fence_token"`
	// IdempotencyKey is the buyer's Idempotency-Key, nil without one.
	IdempotencyKey *string `json:"-"`
	// LimitOneUserID is UserID where the order's INSERT enforces a per-user
	// limit of 1 (the unique key orders_limit_one: ErrLimitOneTaken), nil
	// on every other order (WithLimitOneKey).
	LimitOneUserID *string    `json:"-"`
	Status         string     `json:"status"`
	PayBy          *time.Time `json:"pay_by"`
	PaidAt         *time.Time `json:"paid_at"`
	ExpiredAt      *time.Time `json:"expired_at,omitempty"`
	UnitReturned   bool       `json:"-"`
	// OrderTicket names the unit taken in Redis for this order (the 202's
	// ticket in async mode); nil where the strategy keeps no stock there.
	OrderTicket *string    `json:"order_ticket"`
	AcceptedAt  *time.Time `json:"accepted_at,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
}

// NewOrder is an order of sale for userID made by replica at now: a
// reservation to pay within the sale's window, or paid at once.
func NewOrder(sale Sale, userID, replica string, now time.Time) Order {
	o := Order{SaleID: sale.ID, UserID: userID, ReplicaID: replica, Status: StatusPaid}
	if sale.PayWithinMS > 0 {
		payBy := now.Add(time.Duration(sale.PayWithinMS) * time.Millisecond).UTC().Truncate(time.Microsecond)
		o.Status, o.PayBy = StatusReserved, &payBy
	}
	return o
}

// TicketFailure is an order ticket whose order could not be made.
type TicketFailure struct {
	OrderTicket string     `gorm:"primaryKey" json:"order_ticket"`
	SaleID      uint64     `json:"sale_id"`
	UserID      string     `json:"user_id"`
	Reason      string     `json:"reason"`
	AcceptedAt  *time.Time `json:"accepted_at"`
	FailedAt    time.Time  `json:"failed_at"`
}

// Stats is a sale's truth, computed from the database only.
type Stats struct {
	Sold        int64 `json:"sold"`         // count(orders)
	Oversold    int64 `json:"oversold"`     // max(0, sold - initial_stock)
	LostUpdates int64 `json:"lost_updates"` // |sold - (initial_stock - stock)|
	Duplicates  int64 `json:"duplicates"`   // users with more orders than per_user_limit
	Violations  int64 `json:"violations"`   // overlapping critical sections (critical_sections)
	// LockCycle is the sections' hold and hand-over times: the lock's
	// physical limit, measured in the sale's own run.
	LockCycle sectionlog.Cycle `json:"lock_cycle"`
}

// SaleView is a sale with its stats, as the API shows it.
type SaleView struct {
	Sale
	Stats
	// StoreStock is the stock a strategy keeps outside the database
	// (redis-lua-stock's Redis), -1 when the store lost it; absent for the
	// others. At rest it equals Stock: the two drifting apart is a bug.
	StoreStock *int64 `json:"store_stock,omitempty"`
	// Queue: the async order mode's figures (async sales only).
	Queue *QueueFigures `json:"queue,omitempty"`
	// Reservations: orders by status (sales with a pay window only).
	Reservations *ReservationFigures `json:"reservations,omitempty"`
	// Reconcile: the strategy's own stock checked against the database
	// (sales whose strategy keeps one).
	Reconcile *Reconciliation `json:"reconcile,omitempty"`
	// Shards: a sale split in the database, shard by shard (its stock,
	// the units it sold, the buyers who moved on to it from an empty home).
	Shards []ShardFigure `json:"shards,omitempty"`
	// Healthy: nothing oversold, lost, duplicated or overlapping, and no
	// drift between the two stocks. Nil where the view was not judged
	// (a run's step carries the bare sale).
	Healthy *bool `json:"healthy,omitempty"`
	// Verdict: holds, overlapped_safe or broken, with its reason (verdict.Of
	// on the stats and the fenced writes).
	Verdict verdict.Verdict `json:"verdict"`
}

// NewSaleView is sale with its stats, judged.
func NewSaleView(sale Sale, st Stats) SaleView {
	return SaleView{Sale: sale, Stats: st, Verdict: verdict.Of(verdict.Figures{Oversold: st.Oversold,
		LostUpdates: st.LostUpdates, Duplicates: st.Duplicates, Violations: st.Violations, FencedWrites: sale.FencedWrites})}
}

// QueueFigures are an async sale's queue figures: Accepted and InFlight
// from Redis, the rest from the database.
type QueueFigures struct {
	Accepted         int64      `json:"accepted"`
	InFlight         int64      `json:"in_flight"`
	Confirmed        int64      `json:"confirmed"`
	Failed           int64      `json:"failed"`
	ConfirmP50MS     float64    `json:"confirm_p50_ms"`
	ConfirmP99MS     float64    `json:"confirm_p99_ms"`
	FirstAcceptedAt  *time.Time `json:"first_accepted_at"`
	FirstConfirmedAt *time.Time `json:"first_confirmed_at"`
	LastConfirmedAt  *time.Time `json:"last_confirmed_at"`
}

// ReservationFigures count a sale's orders by status; Returned are the
// expired ones whose unit is back in every stock.
type ReservationFigures struct {
	Reserved int64 `json:"reserved"`
	Paid     int64 `json:"paid"`
	Expired  int64 `json:"expired"`
	Returned int64 `json:"returned"`
}

// Reconciliation compares a stock kept in Redis with the database's: the
// database's stock (plus what was accepted after the Redis snapshot and is
// already persisted) must equal Redis's stock plus the units in flight
// (minus those already persisted) plus the expired units not yet back in
// Redis. Drift is the difference; 0 is consistent.
type Reconciliation struct {
	DBStock           int64 `json:"db_stock"`
	StoreStock        int64 `json:"store_stock"` // -1: lost (rebuilt by the next order, or a repair)
	InFlight          int64 `json:"in_flight"`
	PersistedInFlight int64 `json:"persisted_in_flight"` // in flight in Redis, already an order
	ExpiredUnreturned int64 `json:"expired_unreturned"`
	LostReturns       int64 `json:"lost_returns"`    // returned says the database, not in Redis's returned set: Redis lost them
	PersistedAfter    int64 `json:"persisted_after"` // accepted after the snapshot, already an order
	// Stuck: units in flight past reserved.Stale that are no
	// order: their replica died before settling them. Drift, until a
	// reconciliation reclaims them (gives them back).
	Stuck     int64     `json:"stuck"`
	Drift     int64     `json:"drift"`
	CheckedAt time.Time `json:"checked_at"`
}
