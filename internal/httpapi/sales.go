package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
)

// Bounds and defaults of a new sale. The bounds keep one request from
// tying a replica up for long (work_ms is slept inside the lock, by every
// buyer) and keep values inside the INT columns of migrations/.
const (
	MaxStock            = 1_000_000
	MaxWorkMS           = 60_000
	MaxTTLMS            = 600_000
	DefaultTTLMS        = 2000 // also the column default in migrations/
	DefaultPerUserLimit = 1
	MaxPerUserLimit     = 1_000_000
	MaxNameLen          = 100 // characters; sales.name is VARCHAR(100)
	listLimit           = 100 // GET /api/sales shows the newest 100
)

// createSaleRequest is the body of POST /api/sales. Pointers tell an absent
// (or null) member from a zero one: ttl_ms 0 and per_user_limit 0 differ
// from their absence.
type createSaleRequest struct {
	Name         *string
	Strategy     *string
	Stock        *int64
	WorkMS       *int64
	TTLMS        *int64
	Fencing      *bool
	Watchdog     *bool
	PerUserLimit *int64
}

func (r *createSaleRequest) members() map[string]any {
	return map[string]any{
		"name": &r.Name, "strategy": &r.Strategy, "stock": &r.Stock, "work_ms": &r.WorkMS,
		"ttl_ms": &r.TTLMS, "fencing": &r.Fencing, "watchdog": &r.Watchdog, "per_user_limit": &r.PerUserLimit,
	}
}

// createSale is POST /api/sales (admin). Everything is validated before the
// single write, so a rejected request writes nothing.
func (s *Server) createSale(c *gin.Context) {
	var req createSaleRequest
	if err := decodeObject(c.Request.Body, req.members()); err != nil {
		writeError(c, s.log, err)
		return
	}
	sale, err := s.validateSale(req)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	if err := s.insertSale(c.Request.Context(), &sale); err != nil {
		writeError(c, s.log, err)
		return
	}
	// A new sale has no orders: its stats are zero by construction.
	c.JSON(http.StatusCreated, inventory.SaleView{Sale: sale})
}

// insertSale stores a validated sale (filling in its id and timestamps) and,
// for a strategy that keeps the stock outside the database, loads it. POST
// /api/sales and the steps of POST /api/runs both make sales through it.
func (s *Server) insertSale(ctx context.Context, sale *inventory.Sale) error {
	locker, err := s.lockers.Get(sale.Strategy, order.LockOptions(*sale))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errStrategyUnavailable, sale.Strategy, err)
	}
	// Timestamps at the column's precision, so this response and a later GET
	// show the same instant.
	now := time.Now().UTC().Truncate(time.Microsecond)
	sale.CreatedAt, sale.UpdatedAt = now, now
	// One transaction around the insert and LoadStock: a strategy that keeps
	// the stock outside the database (redis-lua-stock) must have it before
	// anyone can see the sale, and a failed load must leave no sale behind.
	err = s.store.DB().WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := inventory.NewStore(tx).CreateSale(ctx, sale); err != nil {
			return err
		}
		if r, ok := locker.(lockstrategy.Reserver); ok {
			if err := r.LoadStock(ctx, s.orders.LockKey(sale.ID), sale.InitialStock); err != nil {
				return fmt.Errorf("%w: %s: load stock: %w", errStrategyUnavailable, sale.Strategy, err)
			}
		}
		return nil
	})
	return err
}

// validateSale checks req member by member and fills in the defaults.
func (s *Server) validateSale(req createSaleRequest) (inventory.Sale, error) {
	var sale inventory.Sale
	if req.Strategy == nil || *req.Strategy == "" {
		return sale, badField("strategy", "strategy is required; known: %s", strings.Join(lockstrategy.Names(), ", "))
	}
	st, err := lockstrategy.Lookup(*req.Strategy)
	if err != nil {
		return sale, badField("strategy", "unknown strategy %q; known: %s", clip(*req.Strategy), strings.Join(lockstrategy.Names(), ", "))
	}
	// Configured, not the last probe's verdict: a sale does not need its
	// backend to answer this second (a lesson creates one right after
	// restarting a Redis), only to exist.
	if err := st.Configured(s.lockers.Backends()); err != nil {
		needs := make([]string, len(st.Needs))
		for i, n := range st.Needs {
			needs[i] = string(n)
		}
		return sale, badField("strategy", "strategy %q is unavailable on this replica: it needs %s, not all connected; available: %s",
			st.Name, strings.Join(needs, " and "), strings.Join(s.availableNames(), ", "))
	}
	sale.Strategy = st.Name

	if req.Stock == nil {
		return sale, badField("stock", "stock is required (1..%d)", MaxStock)
	}
	if *req.Stock < 1 || *req.Stock > MaxStock {
		return sale, badField("stock", "stock must be between 1 and %d", MaxStock)
	}
	sale.InitialStock = *req.Stock

	work, err := intIn("work_ms", req.WorkMS, 0, 0, MaxWorkMS)
	if err != nil {
		return sale, err
	}
	sale.WorkMS = work
	ttl, err := intIn("ttl_ms", req.TTLMS, DefaultTTLMS, 0, MaxTTLMS)
	if err != nil {
		return sale, err
	}
	if ttl == 0 {
		ttl = DefaultTTLMS
	}
	sale.TTLMS = ttl
	if sale.PerUserLimit, err = intIn("per_user_limit", req.PerUserLimit, DefaultPerUserLimit, 0, MaxPerUserLimit); err != nil {
		return sale, err
	}
	if req.Fencing != nil {
		sale.Fencing = *req.Fencing
	}
	sale.Watchdog = true
	if req.Watchdog != nil && !*req.Watchdog {
		if !st.Renews {
			return sale, badField("watchdog", "strategy %q has no watchdog to turn off; only %s renew their lease",
				st.Name, strings.Join(lockstrategy.Renewing(), " and "))
		}
		sale.Watchdog = false
	}

	sale.Name = st.Name + " sale"
	if req.Name != nil {
		if n := strings.TrimSpace(*req.Name); n != "" {
			if utf8.RuneCountInString(n) > MaxNameLen {
				return sale, badField("name", "name must be at most %d characters", MaxNameLen)
			}
			sale.Name = n
		}
	}
	return sale, nil
}

// intIn returns *v, or def when v is absent, after checking lo <= *v <= hi.
func intIn(field string, v *int64, def, lo, hi int64) (int, error) {
	if v == nil {
		return int(def), nil
	}
	if *v < lo || *v > hi {
		return 0, badField(field, "%s must be between %d and %d", field, lo, hi)
	}
	return int(*v), nil
}

// availableNames lists the strategies this replica can run.
func (s *Server) availableNames() []string {
	var out []string
	for _, st := range lockstrategy.All() {
		if st.Available(s.lockers.Backends()) == nil {
			out = append(out, st.Name)
		}
	}
	return out
}

// listSales is GET /api/sales: the newest sales first, with their stats.
func (s *Server) listSales(c *gin.Context) {
	ctx := c.Request.Context()
	sales, err := s.store.ListSales(ctx, listLimit)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	views := make([]inventory.SaleView, 0, len(sales))
	for _, sale := range sales {
		v, err := s.store.View(ctx, sale)
		if err != nil {
			writeError(c, s.log, err)
			return
		}
		views = append(views, v)
	}
	c.JSON(http.StatusOK, views)
}

// getSale is GET /api/sales/:id.
func (s *Server) getSale(c *gin.Context) {
	id, err := saleID(c)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	// This replica's critical sections are logged in batches; writing the
	// queued ones first makes the violations exact for every section it has
	// answered. A client reading a settled sale asks every replica once.
	s.orders.Flush()
	v, err := s.view(c.Request.Context(), id)
	if err != nil {
		writeError(c, s.log, err)
		return
	}
	c.JSON(http.StatusOK, v)
}

func (s *Server) view(ctx context.Context, id uint64) (inventory.SaleView, error) {
	sale, err := s.store.GetSale(ctx, id)
	if err != nil {
		return inventory.SaleView{}, err
	}
	v, err := s.store.View(ctx, sale)
	if err != nil {
		return v, err
	}
	v.StoreStock = s.storeStock(ctx, sale)
	return v, nil
}

// stockReporter is a strategy that keeps a stock of its own and can say it.
type stockReporter interface {
	StockLeft(ctx context.Context, key string) (int64, error)
}

// storeStock is the sale's stock in its strategy's own store, or nil (no
// such store, or it does not answer: the view still serves the database's).
func (s *Server) storeStock(ctx context.Context, sale inventory.Sale) *int64 {
	l, err := s.lockers.Get(sale.Strategy, order.LockOptions(sale))
	if err != nil {
		return nil
	}
	r, ok := l.(stockReporter)
	if !ok {
		return nil
	}
	n, err := r.StockLeft(ctx, s.orders.LockKey(sale.ID))
	if err != nil {
		return nil
	}
	return &n
}

// saleID parses the :id path parameter: a decimal integer (ids start at 1,
// so 0 parses and is then simply not found).
func saleID(c *gin.Context) (uint64, error) {
	raw := c.Param("id")
	id, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		e := badRequest("invalid_id", "the sale id must be a decimal integer, not %q", clip(raw))
		e.body.Field = "id"
		return 0, e
	}
	return id, nil
}
