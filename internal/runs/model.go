// Package runs keeps load-test runs created through the API in the
// shared database: a run is one step per strategy, each step has its own
// sale, and each step's buyers are split into shares that load-test agents
// claim, execute and report on. Every replica can serve every call: the state
// is in the database only, and a run advances (next step, done) inside a
// transaction that locks its row, whichever replica notices first.
//
// There is no background goroutine: agents poll for claims every ~200 ms and
// report every second, and each of those calls advances the runs that are
// due. A run with no agent left still finishes when a GET notices its
// deadline passed.
package runs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Sentinel errors of this package.
var (
	// ErrNotFound means no run (or no such step/share of it) exists.
	ErrNotFound = errors.New("runs: not found")
	// ErrNotYours means an agent reported on a share another agent holds
	// (or nobody claimed): its figures are refused.
	ErrNotYours = errors.New("runs: share claimed by another agent")
	// ErrInvalid means a report carried figures that cannot be right.
	ErrInvalid = errors.New("runs: invalid report")
)

// Status of a run.
const (
	StatusQueued  = "queued"
	StatusRunning = "running"
	StatusDone    = "done"
	StatusFailed  = "failed"
)

// Status of a step.
const (
	stepPending = "pending"
	stepRunning = "running"
	stepDone    = "done"
)

// Config is what a run does, as POST /api/runs validated it.
type Config struct {
	Strategy     string   `json:"strategy"`   // as given: a name or "all"
	Strategies   []string `json:"strategies"` // resolved, in run order: one step each
	Stock        int64    `json:"stock"`
	Buyers       int      `json:"buyers"`      // per step, split between the shares
	Concurrency  int      `json:"concurrency"` // closed model workers per share; 0 in the open model
	Rate         float64  `json:"rate"`        // open model requests/s per step (split between shares)
	Replicas     int      `json:"replicas"`    // shop replicas targeted (0: all alive)
	WorkMS       int      `json:"work_ms"`
	TTLMS        int      `json:"ttl_ms"`
	Fencing      bool     `json:"fencing"`
	Watchdog     bool     `json:"watchdog"` // off: the steps of renewing strategies (redis, redlock) run without renewal
	PerUserLimit int      `json:"per_user_limit"`
	// The guards of every step's sale; its opening is relative to the
	// step's start, when the sale is made.
	OpensInMS      int  `json:"opens_in_ms"`
	SoldOutCache   bool `json:"sold_out_cache"`
	RateLimitUser  int  `json:"rate_limit_user"`
	RateLimitIP    int  `json:"rate_limit_ip"`
	TicketRequired bool `json:"ticket_required"`
	// OrderMode async queues the orders of the steps whose strategy can
	// (the others stay sync); PayWithinMS makes every order a reservation.
	OrderMode   string `json:"order_mode"`
	PayWithinMS int    `json:"pay_within_ms"`
	// Combine sells the orders waiting for the lock as batches, in the
	// steps whose strategy takes a lock (the others run as they are).
	Combine          bool `json:"combine"`
	CombineMaxBatch  int  `json:"combine_max_batch,omitempty"`
	CombineMaxWaitUS int  `json:"combine_max_wait_us,omitempty"`
	// StockShards splits the stock (库存分段) in the steps whose strategy
	// can (the others keep one shard); 0 or 1: one.
	StockShards int `json:"stock_shards,omitempty"`
}

// UnmarshalJSON reads a stored config; one stored before the watchdog
// switch existed has no "watchdog" member and meant it on; one stored
// before the sold-out cache existed ran without it.
func (c *Config) UnmarshalJSON(b []byte) error {
	type plain Config // no methods: no recursion
	p := plain{Watchdog: true}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = Config(p)
	return nil
}

// StepDeadline is the first deadline of a step: 60 s plus one second per
// 100 buyers. A share whose agent died never reports done; the deadline is
// what ends its step. It is a stall deadline, not a budget: every report
// that shows progress pushes it to at least StallGrace from then, so a
// slow machine (or a slow strategy) never has a live step cut short.
func StepDeadline(buyers int) time.Duration {
	return 60*time.Second + time.Duration(buyers)*10*time.Millisecond
}

// StallGrace is how long a step stays open after the last report that
// showed progress: many report periods (agents report every second), and
// longer than one order's timeout.
const StallGrace = 30 * time.Second

// Sales creates the sale of each step: the application's sale service, so
// that a run's sales are made exactly like POST /api/sales makes them
// (inserted and, for a lockstrategy.Reserver, their stock loaded).
type Sales interface {
	Create(ctx context.Context, spec sale.Spec) (inventory.Sale, error)
}

// StepSpec is the sale of one step of a run of cfg, named after the
// strategy. A run's watchdog:false turns off the watchdogs there are and
// leaves the other steps as they are.
func StepSpec(strategy string, cfg Config) sale.Spec {
	name := "run " + strategy
	stock, work, ttl, limit := cfg.Stock, int64(cfg.WorkMS), int64(cfg.TTLMS), int64(cfg.PerUserLimit)
	fencing, opensIn, cache, ticket := cfg.Fencing, int64(cfg.OpensInMS), cfg.SoldOutCache, cfg.TicketRequired
	perUser, perIP, payWithin := int64(cfg.RateLimitUser), int64(cfg.RateLimitIP), int64(cfg.PayWithinMS)
	spec := sale.Spec{Name: &name, Strategy: &strategy, Stock: &stock, WorkMS: &work, TTLMS: &ttl,
		Fencing: &fencing, Watchdog: sale.LenientWatchdog(strategy, cfg.Watchdog), PerUserLimit: &limit,
		OpensInMS: &opensIn, SoldOutCache: &cache, RateLimitUser: &perUser, RateLimitIP: &perIP, TicketRequired: &ticket,
		OrderMode: sale.LenientOrderMode(strategy, cfg.OrderMode), PayWithinMS: &payWithin}
	if spec.Combine = sale.LenientCombine(strategy, cfg.OrderMode, cfg.Combine); spec.Combine != nil {
		batch, wait := int64(cfg.CombineMaxBatch), int64(cfg.CombineMaxWaitUS)
		spec.CombineMaxBatch, spec.CombineMaxWaitUS = &batch, &wait
	}
	if cfg.StockShards > 1 {
		spec.StockShards = sale.LenientStockShards(strategy, spec.OrderMode, int64(cfg.StockShards))
	}
	return spec
}

// Row types (gorm). Times are the database's clock, UTC.
type runRow struct {
	ID          uint64 `gorm:"primaryKey"`
	Status      string
	Config      string
	Targets     string
	CurrentStep int
	Error       string
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
}

func (runRow) TableName() string { return "runs" }

type stepRow struct {
	RunID      uint64 `gorm:"primaryKey"`
	Step       int    `gorm:"primaryKey"`
	Strategy   string
	Status     string
	SaleID     *uint64
	Buyers     int
	StartedAt  *time.Time
	Deadline   *time.Time
	FinishedAt *time.Time
}

func (stepRow) TableName() string { return "run_steps" }

type shareRow struct {
	RunID      uint64 `gorm:"primaryKey"`
	Step       int    `gorm:"primaryKey"`
	Share      int    `gorm:"primaryKey"`
	Buyers     int
	UserPrefix string
	AgentID    *string
	ClaimedAt  *time.Time
	ReportedAt *time.Time
	Done       bool
	Requests   int64
	Orders     int64
	SoldOut    int64
	Errors     string
	ElapsedMS  int64 `gorm:"column:elapsed_ms"`
	Histogram  string
}

func (shareRow) TableName() string { return "run_shares" }
