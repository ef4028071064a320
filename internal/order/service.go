// Package order is the order flow: Service.Buy runs one purchase on its
// sale's road, chosen once per sale (road.go): under the sale's lock
// (place.go, the critical section in critical.go), combined into a batch
// under one lock (combine.go, batch.go), lock-free (lockfree.go), from the
// strategy's own stock with a group commit (reserved.go, groupcommit.go),
// or queued (queued.go; the queue consumer's transaction, QueueCommit, in
// queuecommit.go). Every order's transaction commits here, including a
// lock's own transaction (db-pessimistic hands it over: leave). Restock,
// reservations (pay, expiry) and the linearizability history are beside
// the roads (restock.go, reservations.go, history.go). Faults meet the road
// at the points of faultpoint.Hooks (Config.Faults), nil in production. It
// imports no HTTP; httpapi maps its sentinel errors to status codes.
package order

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/eventlog"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/gather"
	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/reserved"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Config tunes the order flow.
type Config struct {
	// ReplicaID is written on every order; required.
	ReplicaID string
	// LockWait bounds the wait for the lock; past it the buyer gets
	// ErrLockTimeout. Default 10s.
	LockWait time.Duration
	// UnlockTimeout bounds Unlock, run on a fresh ctx so that a buyer who
	// hung up still releases the lock. Default 5s.
	UnlockTimeout time.Duration
	// ReservedBatch is the most reserved units (redis-lua-stock, sync)
	// persisted in one transaction (group commit, groupcommit.go); 1
	// persists each alone. Default 128.
	ReservedBatch int
	// ReservedBatchWait is how long the first unit of a batch waits for
	// others before the batch is written. Default 1ms.
	ReservedBatchWait time.Duration
	// Faults are the replica's fault points, called at the road's named
	// points (faultpoint.Hooks); nil in production.
	Faults faultpoint.Hooks
}

// Observation is what one Place did, for metrics.
type Observation struct {
	SaleID   uint64
	Strategy string
	Outcome  string    // OutcomeOK, OutcomeSoldOut, ...
	Arrived  time.Time // when Place began
	Opening  time.Time // the sale's opens_at: the herd's first second runs from it
	Acquired time.Time // when the lock was held; zero if it never was or the strategy takes none
	Total    time.Duration
	LockWait time.Duration // 0 for strategies that take no lock
	Critical time.Duration // from lock held to just before unlock
	Retries  int           // CAS rounds lost (db-optimistic)
	// QuorumRounds is the rounds a quorum lock's acquisition took (redlock;
	// 0 otherwise), SplitRounds those of them that failed with split votes.
	QuorumRounds, SplitRounds int
	// Layer answered: LayerLock, LayerDatabase, LayerStore, or a guard's
	// layer for an answer given before the order flow.
	Layer string
}

// Recorder receives one Observation per Place; metrics implements it.
type Recorder interface {
	ObservePlace(o Observation)
}

// Service places orders.
type Service struct {
	cfg     Config
	store   *inventory.Store
	lockers *lockstrategy.Instances
	rec     Recorder
	log     *slog.Logger
	queue   *orderqueue.Queue // the async order mode; nil: off
	// commits persists the reserved units of a sale in batches.
	commits *gather.Gatherer[uint64, reservedOrder, inventory.Order]
	// OnUnitsBack is told of a sale whose units went back to its stock (an
	// expired reservation): the sold-out cache must forget it. May be nil.
	OnUnitsBack func(saleID uint64)
	sales       sync.Map // sale id -> inventory.Sale: the options never change after creation
	roads       sync.Map // sale id -> its road (road.go), chosen on its first order
	combiners   sync.Map // sale id -> its gatherer (combine.go): the buyers of a combining sale waiting here
	// keyspace is the database's name: sale ids restart in every database,
	// and a demo and the tests share one Redis and one ZooKeeper.
	keyspace string
	// sections records every critical section, for violation detection that
	// does not trust the strategy under test.
	sections *sectionlog.Log
	// history records every answered order request, for the sale's
	// linearizability check.
	history *history.Log
	// events records the leases of the sale's locks and the faults
	// injected here, for the timeline.
	events *eventlog.Log
	// bg counts stock rebuilds waiting out their settle time; closing ends
	// them (Close).
	bg        sync.WaitGroup
	closing   chan struct{}
	closeOnce sync.Once
}

// NewService returns a Service; rec may be nil.
func NewService(cfg Config, store *inventory.Store, lockers *lockstrategy.Instances, rec Recorder, log *slog.Logger) *Service {
	if cfg.LockWait <= 0 {
		cfg.LockWait = 10 * time.Second
	}
	if cfg.UnlockTimeout <= 0 {
		cfg.UnlockTimeout = 5 * time.Second
	}
	if cfg.ReservedBatch <= 0 {
		cfg.ReservedBatch = defaultReservedBatch
	}
	if cfg.ReservedBatchWait <= 0 {
		cfg.ReservedBatchWait = defaultReservedBatchWait
	}
	s := &Service{cfg: cfg, store: store, lockers: lockers, rec: rec, log: log,
		keyspace: store.DB().Migrator().CurrentDatabase(), closing: make(chan struct{}),
		sections: sectionlog.New(store.DB(), log), history: history.New(store.DB(), log), events: eventlog.New(store.DB(), log)}
	s.commits = s.newGroupCommit()
	return s
}

// Close stops stock rebuilds still waiting and writes the critical
// sections still queued. Call it after the last Place.
func (s *Service) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.bg.Wait()
	s.sections.Close()
	s.history.Close()
	s.events.Close()
}

// Events is the replica's record of lease and fault events (the timeline).
func (s *Service) Events() *eventlog.Log { return s.events }

// ReplicaID is the replica this service places orders for.
func (s *Service) ReplicaID() string { return s.cfg.ReplicaID }

// observeLeases makes the leases taken under ctx for sale saleID report
// to the event log (the strategies that know their leases: redis).
func (s *Service) observeLeases(ctx context.Context, saleID uint64) context.Context {
	return lockstrategy.WithLeaseObserver(ctx, func(e lockstrategy.LeaseEvent) {
		s.events.Lease(eventlog.Lease{SaleID: saleID, ReplicaID: s.cfg.ReplicaID, Token: e.Token, Event: e.Event,
			At: e.At, TTLMS: e.TTL.Milliseconds()})
	})
}

// rebuildStock puts a Reserver's lost stock back from the database: after
// reserved.ReloadSettle every unit taken from the lost stock is
// persisted or given up (reservePersistTimeout), so the stock of record is
// what the store must hold. Buyers get ErrStockReloading meanwhile. If this
// replica stops first, the store's rebuild marker expires and another
// order claims the rebuild.
func (s *Service) rebuildStock(saleID uint64, key string, rs lockstrategy.Reserver) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		select {
		case <-time.After(reserved.ReloadSettle):
		case <-s.closing:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stock, returned, err := s.store.StockAndReturned(ctx, saleID)
		if err == nil {
			err = rs.RestoreStock(ctx, key, stock, returned)
		}
		if err != nil {
			s.log.Warn("rebuilding a lost stock from the database", "sale", saleID, "err", err)
			return
		}
		s.log.Info("stock rebuilt from the database", "sale", saleID, "stock", stock)
	}()
}

// LockKey is the lock key of a sale: one lock per sale, named after the
// database too, so that sale 7 of a demo and sale 7 of a test database never
// share a lock (or a stock in Redis) on the same servers.
func (s *Service) LockKey(saleID uint64) string {
	return s.keyspace + ":sale:" + strconv.FormatUint(saleID, 10)
}

// Sale returns the sale's options, which never change, cached after the
// first read (its stock in the cache is the first read's: read it anew).
func (s *Service) Sale(ctx context.Context, id uint64) (inventory.Sale, error) {
	if v, ok := s.sales.Load(id); ok {
		return v.(inventory.Sale), nil
	}
	sale, err := s.store.GetSale(ctx, id)
	if errors.Is(err, inventory.ErrSaleNotFound) {
		return sale, ErrSaleNotFound
	}
	if err != nil {
		return sale, asDBUnavailable(err, "")
	}
	s.sales.Store(id, sale)
	return sale, nil
}

// KeyedOrder finds the order userID's idempotency key made on sale saleID.
func (s *Service) KeyedOrder(ctx context.Context, saleID uint64, userID, key string) (inventory.Order, bool, error) {
	o, ok, err := s.store.KeyedOrder(ctx, saleID, userID, key)
	return o, ok, asDBUnavailable(err, "")
}

// Flush returns once the critical sections, the history and the timeline's
// events of finished orders are written, so that a following read of
// violations, of the history or of the timeline sees them.
func (s *Service) Flush() {
	s.sections.Flush()
	s.history.Flush()
	s.events.Flush()
}

// asBackendDown marks a failure to reach the lock's backend (refused,
// reset, timed out) as lockstrategy.ErrBackendDown: the backend went away
// before the replica's probe noticed; the buyer may retry.
func asBackendDown(err error) error {
	if lockstrategy.IsTransport(err) && !errors.Is(err, lockstrategy.ErrBackendDown) {
		return fmt.Errorf("%w: %w", lockstrategy.ErrBackendDown, err)
	}
	return err
}
