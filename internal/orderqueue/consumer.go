package orderqueue

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
)

// ConsumerConfig tunes a consumer. Zero values take the defaults.
type ConsumerConfig struct {
	Name string // the consumer's name in the group: the replica's id; required
	// Batch is the most entries read (and persisted per sale) at once. 256.
	Batch int
	// ClaimIdle is how long an entry stays delivered and unacknowledged
	// before another consumer reclaims it (XAUTOCLAIM): its consumer died,
	// or failed to persist it. 2s.
	ClaimIdle time.Duration
	// PersistTimeout bounds one batch's transaction; a stock rebuild waits
	// longer than this before it reads the database. 2s.
	PersistTimeout time.Duration
	// SaleKey is the lock key of a sale (order.Service.LockKey).
	SaleKey func(saleID uint64) string
	// Faults are the replica's fault points: kill_consumer strikes a batch
	// at faultpoint.BeforeConsumerCommit (Persist's, inside its
	// transaction) or AfterConsumerCommit. Nil in production.
	Faults faultpoint.Hooks
	// Persist commits a sale's batch (order.QueueCommit); required.
	Persist PersistFunc
}

// PersistFunc decides every entry of es and writes the orders, the
// failures and the stock in ONE transaction holding the sale's row:
// consumers of one sale take turns, and each sees what the previous
// committed. It returns one Settlement per entry, in es's order. refused
// non-nil means the database refused these entries' rows: each that would
// be an order fails with ReasonRefused instead. ctx carries the consumer's
// PersistTimeout.
type PersistFunc func(ctx context.Context, sale inventory.Sale, es []Entry, refused error) ([]Settlement, error)

// Observer receives what the consumer did, for live figures; may be nil.
type Observer interface {
	// ObserveConfirmed: an order made from a ticket the store accepted at
	// accepted, committed at committed.
	ObserveConfirmed(saleID uint64, accepted, committed time.Time)
	ObserveFailed(saleID uint64, reason string)
}

// Consumer persists the queued orders: one per replica, all in Group.
type Consumer struct {
	cfg    ConsumerConfig
	rdb    *redis.Client
	store  *inventory.Store
	stream string
	obs    Observer
	log    *slog.Logger
	// OnUnitsBack is called with a sale whose units went back to its stock
	// (failed tickets): the sold-out cache must forget it. May be nil.
	OnUnitsBack func(saleID uint64)
}

// NewConsumer returns the consumer of q's stream; an error when
// cfg.Persist is nil.
func NewConsumer(cfg ConsumerConfig, q *Queue, store *inventory.Store, obs Observer, log *slog.Logger) (*Consumer, error) {
	if cfg.Persist == nil {
		return nil, errors.New("orderqueue: ConsumerConfig.Persist is nil: the consumer has no transaction to commit its batches")
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 256
	}
	if cfg.ClaimIdle <= 0 {
		cfg.ClaimIdle = 2 * time.Second
	}
	if cfg.PersistTimeout <= 0 {
		cfg.PersistTimeout = 2 * time.Second
	}
	return &Consumer{cfg: cfg, rdb: q.rdb, store: store, stream: q.stream, obs: obs, log: log}, nil
}

// Run consumes until ctx ends: new entries (XREADGROUP >), and every
// ClaimIdle the entries left unacknowledged by a dead or failing consumer
// (XAUTOCLAIM), this one's included.
func (c *Consumer) Run(ctx context.Context) {
	_ = c.ensureGroup(ctx) // a failure shows as NOGROUP below, and is retried there
	lastClaim := time.Now()
	for ctx.Err() == nil {
		if time.Since(lastClaim) >= c.cfg.ClaimIdle/2 {
			lastClaim = time.Now()
			c.claim(ctx)
		}
		res, err := c.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: Group, Consumer: c.cfg.Name,
			Streams: []string{c.stream, ">"}, Count: int64(c.cfg.Batch), Block: c.cfg.ClaimIdle / 2}).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.recover(ctx, err)
			continue
		}
		for _, s := range res {
			c.process(ctx, s.Messages)
		}
	}
}

// recover handles a read error: a missing group (Redis restarted without
// persistence, or never had it) is created again; anything else waits a
// little (Redis down) before the next try.
func (c *Consumer) recover(ctx context.Context, err error) {
	if strings.HasPrefix(err.Error(), "NOGROUP") {
		if gerr := c.ensureGroup(ctx); gerr == nil {
			return
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(200 * time.Millisecond):
	}
}

// ensureGroup creates the group (and the stream) if missing, reading from
// the stream's start: entries queued before the group existed are orders too.
func (c *Consumer) ensureGroup(ctx context.Context) error {
	err := c.rdb.XGroupCreateMkStream(ctx, c.stream, Group, "0").Err()
	if err != nil && strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return nil
	}
	return err
}

// goneAfter is how long a consumer with nothing pending stays in the
// group's list after its last read: a replica that stopped for good is then
// dropped (XGROUP DELCONSUMER), so the figures show live consumers.
const goneAfter = 5 * time.Minute

// forgetGone drops the group's consumers idle past goneAfter with nothing
// pending (deleting one with pending entries would lose them).
func (c *Consumer) forgetGone(ctx context.Context) {
	cs, err := c.rdb.XInfoConsumers(ctx, c.stream, Group).Result()
	if err != nil {
		return
	}
	for _, gone := range cs {
		if gone.Name != c.cfg.Name && gone.Pending == 0 && gone.Idle > goneAfter {
			c.rdb.XGroupDelConsumer(ctx, c.stream, Group, gone.Name)
		}
	}
}

// claim takes over entries idle past ClaimIdle and persists them.
func (c *Consumer) claim(ctx context.Context) {
	c.forgetGone(ctx)
	start := "0-0"
	for ctx.Err() == nil {
		msgs, next, err := c.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: c.stream, Group: Group,
			Consumer: c.cfg.Name, MinIdle: c.cfg.ClaimIdle, Start: start, Count: int64(c.cfg.Batch)}).Result()
		if err != nil {
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				_ = c.ensureGroup(ctx)
			}
			return
		}
		if len(msgs) > 0 {
			c.log.Info("reclaimed queued orders", "entries", len(msgs))
			c.process(ctx, msgs)
		}
		if next == "0-0" || next == "" {
			return
		}
		start = next
	}
}

// Entry is one queued order, as its Persist sees it.
type Entry struct {
	id             string // the stream entry
	saleID         uint64
	Ticket         string
	UserID         string
	IdempotencyKey string    // "" when the buyer sent none
	AcceptedAt     time.Time // when the store accepted the ticket
}

// parse reads a stream message; ok false for a malformed one.
func parse(m redis.XMessage) (Entry, bool) {
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	sale, err := strconv.ParseUint(str("sale"), 10, 64)
	e := Entry{id: m.ID, saleID: sale, Ticket: str("ticket"), UserID: str("user"), IdempotencyKey: str("idem"),
		AcceptedAt: microsTime(str("at"))}
	return e, err == nil && e.Ticket != "" && e.UserID != ""
}

// process persists msgs, grouped by sale in stream order. A sale whose
// batch fails stays unacknowledged and is reclaimed after ClaimIdle.
func (c *Consumer) process(ctx context.Context, msgs []redis.XMessage) {
	bySale := map[uint64][]Entry{}
	var order []uint64
	for _, m := range msgs {
		e, ok := parse(m)
		if !ok {
			c.log.Error("dropping a malformed queue entry", "id", m.ID, "values", m.Values)
			c.rdb.XAck(ctx, c.stream, Group, m.ID)
			continue
		}
		if _, seen := bySale[e.saleID]; !seen {
			order = append(order, e.saleID)
		}
		bySale[e.saleID] = append(bySale[e.saleID], e)
	}
	for _, sale := range order {
		if err := c.persistSale(ctx, sale, bySale[sale]); err != nil && ctx.Err() == nil {
			c.log.Warn("persisting queued orders; they stay pending and are retried", "sale", sale,
				"entries", len(bySale[sale]), "err", err)
		}
	}
}
