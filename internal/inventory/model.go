// Package inventory keeps sales and orders in MariaDB through gorm: reading
// and writing stock (plain, versioned CAS, conditional, fenced), inserting
// orders, and computing a sale's truth from the database.
package inventory

import (
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
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
	// The flash sale's guards: orders before OpensAt are refused cheaply;
	// SoldOutCache answers sold out from memory once the stock reads 0;
	// RateLimitUser/IP are requests per second (0 = off); TicketRequired
	// asks every order for a signed purchase ticket.
	OpensAt        time.Time `json:"opens_at"`
	SoldOutCache   bool      `json:"sold_out_cache"`
	RateLimitUser  int       `json:"rate_limit_user"`
	RateLimitIP    int       `gorm:"column:rate_limit_ip" json:"rate_limit_ip"`
	TicketRequired bool      `json:"ticket_required"`
	Status         string    `json:"status"`
	FencedWrites   int64     `json:"fenced_writes"` // stale-token writes rejected (fencing on)
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// Order is one successful purchase.
type Order struct {
	ID         uint64 `gorm:"primaryKey" json:"order_id"`
	SaleID     uint64 `json:"sale_id"`
	UserID     string `json:"user_id"`
	ReplicaID  string `json:"replica_id"`
	FenceToken uint64 `json:"fence_token"`
	// IdempotencyKey is the buyer's Idempotency-Key, nil without one.
	IdempotencyKey *string   `json:"-"`
	CreatedAt      time.Time `json:"created_at"`
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
}
