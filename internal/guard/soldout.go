package guard

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// Sold-out cache timings.
const (
	// BackstopEvery: how often each replica checks, against the database,
	// the sales it caches as sold out (cleared when stock came back) and
	// the sales it took orders for (cached when they read 0): a replica that
	// missed a message is right again within this.
	BackstopEvery = time.Second
	// confirmEvery throttles the database check a sold-out answer starts:
	// one per sale per this, however many buyers hear "sold out".
	confirmEvery = 50 * time.Millisecond
	// watchedFor: a sale no order asked for this long leaves the backstop.
	watchedFor = time.Minute
)

// SoldOutCache remembers which sales are sold out, so that a replica
// answers their buyers from memory, without lock or database. It may be
// late, never wrong: a sale is cached only after the stock of record (the
// database) reads 0, by this replica or by the one that says so on the
// Redis channel; it is dropped on every replica when stock comes back
// (Clear, sent on the channel), and the backstop re-reads the database
// every BackstopEvery in case a message was lost.
type SoldOutCache struct {
	db      *gorm.DB
	rdb     *redis.Client // nil: no channel, the backstop only
	channel string
	log     *slog.Logger

	mu      sync.RWMutex
	known   map[uint64]struct{}
	watched map[uint64]time.Time // sales with the cache on that this replica took orders for

	checks sync.Map // sale id -> *atomic.Int64: unix nanos of the last confirm started
}

// NewSoldOutCache returns a cache over db, sharing what it learns on rdb
// (nil for none) on a channel named after keyspace, the database's name:
// databases that share one Redis share no sales.
func NewSoldOutCache(db *gorm.DB, rdb *redis.Client, keyspace string, log *slog.Logger) *SoldOutCache {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &SoldOutCache{db: db, rdb: rdb, channel: "seckill:" + keyspace + ":sold-out", log: log,
		known: map[uint64]struct{}{}, watched: map[uint64]time.Time{}}
}

// Known says whether sale id is cached as sold out.
func (c *SoldOutCache) Known(id uint64) bool {
	if c == nil {
		return false
	}
	c.mu.RLock()
	_, ok := c.known[id]
	c.mu.RUnlock()
	return ok
}

// Watch notes that sale id (with the cache on) takes orders here: the
// backstop checks it.
func (c *SoldOutCache) Watch(id uint64, cacheOn bool) {
	if c == nil || !cacheOn {
		return
	}
	now := time.Now()
	c.mu.RLock()
	seen, ok := c.watched[id]
	c.mu.RUnlock()
	if ok && now.Sub(seen) < BackstopEvery {
		return // fresh enough: no write lock on the hot path
	}
	c.mu.Lock()
	c.watched[id] = now
	c.mu.Unlock()
}

// Confirm is called when the order flow answered sold out: in the
// background, at most once per confirmEvery per sale, it reads the stock
// of record and, at 0, caches the sale here and tells the other replicas.
// (A strategy with a stock of its own says sold out before the database
// has persisted its last units: then the database does not read 0 yet,
// and a later sold-out answer checks again.)
func (c *SoldOutCache) Confirm(ctx context.Context, id uint64) {
	if c == nil || c.Known(id) {
		return
	}
	v, _ := c.checks.LoadOrStore(id, new(atomic.Int64))
	last := v.(*atomic.Int64)
	now := time.Now().UnixNano()
	prev := last.Load()
	if now-prev < int64(confirmEvery) || !last.CompareAndSwap(prev, now) {
		return
	}
	go c.confirm(context.WithoutCancel(ctx), id)
}

// confirm caches sale id, here and on every replica, if its stock of
// record reads 0; it says whether it did.
func (c *SoldOutCache) confirm(ctx context.Context, id uint64) bool {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	stock, err := c.stockOf(cctx, id)
	if err != nil || stock > 0 {
		return false
	}
	c.set(id)
	c.publish(cctx, "set", id)
	return true
}

// Clear drops sale id here and on every replica: its stock came back.
// Call it after the stock of record has the units.
func (c *SoldOutCache) Clear(ctx context.Context, id uint64) {
	if c == nil {
		return
	}
	c.drop(id)
	c.publish(ctx, "clear", id)
}

// Run follows the channel and runs the backstop until ctx ends.
func (c *SoldOutCache) Run(ctx context.Context) {
	if c == nil {
		return
	}
	if c.rdb != nil {
		ps := c.rdb.Subscribe(ctx, c.channel) // go-redis resubscribes after a reconnect
		defer ps.Close()
		go c.follow(ctx, ps.Channel())
	}
	tick := time.NewTicker(BackstopEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			c.backstop(ctx)
		}
	}
}

// follow applies the other replicas' messages: "set:ID" and "clear:ID".
func (c *SoldOutCache) follow(ctx context.Context, msgs <-chan *redis.Message) {
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			verb, rawID, _ := strings.Cut(m.Payload, ":")
			id, err := strconv.ParseUint(rawID, 10, 64)
			if err != nil {
				continue
			}
			switch verb {
			case "set":
				c.set(id)
			case "clear":
				c.drop(id)
			}
		}
	}
}

// backstop re-reads the stock of the sales cached or watched here: those
// with stock again are dropped, those at 0 cached.
func (c *SoldOutCache) backstop(ctx context.Context) {
	now := time.Now()
	c.mu.Lock()
	ids := make([]uint64, 0, len(c.known)+len(c.watched))
	for id := range c.known {
		ids = append(ids, id)
	}
	for id, seen := range c.watched {
		if now.Sub(seen) > watchedFor {
			delete(c.watched, id)
			continue
		}
		if _, ok := c.known[id]; !ok {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	stocks, err := inventory.SaleStocks(qctx, c.db, ids)
	if err != nil {
		c.log.Debug("sold-out cache: backstop read failed", "err", err)
		return
	}
	for id, stock := range stocks {
		if stock > 0 {
			c.drop(id)
		} else {
			c.set(id)
		}
	}
}

func (c *SoldOutCache) stockOf(ctx context.Context, id uint64) (int64, error) {
	return inventory.SaleStock(ctx, c.db, id)
}

func (c *SoldOutCache) set(id uint64) {
	c.mu.Lock()
	c.known[id] = struct{}{}
	c.mu.Unlock()
}

func (c *SoldOutCache) drop(id uint64) {
	c.mu.Lock()
	delete(c.known, id)
	c.mu.Unlock()
}

func (c *SoldOutCache) publish(ctx context.Context, verb string, id uint64) {
	if c.rdb == nil {
		return
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := c.rdb.Publish(pctx, c.channel, verb+":"+strconv.FormatUint(id, 10)).Err(); err != nil {
		c.log.Debug("sold-out cache: publish failed; the backstop covers it", "err", err)
	}
}
