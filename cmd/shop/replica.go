package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/httpapi"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/zkensemble"
)

// errShutdownIncomplete is a graceful HTTP shutdown that ran out of time or
// a server that stopped with an error: the replica exits 1.
var errShutdownIncomplete = errors.New("shop: graceful shutdown incomplete")

// replica is one running shop replica: one field per part. open builds the
// parts in dependency order; close stops them in the order that lets each
// finish its work with the parts it still needs.
type replica struct {
	cfg  serveConfig
	opts serveOptions
	log  *slog.Logger

	db       *gorm.DB
	dbLink   *faults.DBLink // the pool's path to the database, when faults are on (cut_db)
	backends lockstrategy.Backends
	// points are the replica's fault points, which its order path, queue
	// consumer and strategies call, and replyDrop the drop_reply hook on its
	// Redis: both only when faults are on (nil otherwise).
	points        *faultpoint.Points
	replyDrop     *faultpoint.ReplyDropper
	closeBackends func()
	monitor       *loop // probes the backends every few seconds
	lockers       *lockstrategy.Instances
	metrics       *metrics.Metrics
	live          *metrics.LiveRecorder
	orders        *order.Service
	publisher     *loop // publishes the live figures every second
	faults        *faults.Service
	soldOut       *guard.SoldOutCache
	soldOutLoop   *loop   // follows the sold-out channel, runs its backstop
	queueLoops    []*loop // the queue's consumer, the expiry, the reconciliation (queue.go)
	handler       http.Handler
	listener      net.Listener
	server        *http.Server
	served        chan error // Serve's result; nil once read
	member        discovery.Member
	heartbeat     *loop // keeps this replica in discovery
}

// open builds the replica and starts serving. On error the parts built so
// far are left for close.
func (r *replica) open(ctx context.Context) error {
	if _, err := runMigrations(ctx, r.cfg.MySQLDSN, r.log); err != nil {
		return err
	}
	dsn := r.cfg.MySQLDSN
	if faultsOn() {
		// The pool dials through a link the cut_db fault can cut.
		link, linked, err := faults.NewDBLink(dsn)
		if err != nil {
			r.log.Warn("cut_db will not be available", "err", err)
		} else {
			r.dbLink, dsn = link, linked
		}
	}
	db, err := inventory.Open(ctx, inventory.Config{DSN: dsn})
	if err != nil {
		return err
	}
	r.db = db
	r.openStrategies(ctx)
	ln, err := net.Listen("tcp", r.cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	r.listener = ln
	if r.cfg.ReplicaID == "" {
		r.cfg.ReplicaID = defaultReplicaID(ln.Addr().String())
	}
	if err := r.openServices(ctx); err != nil {
		return err
	}
	r.serve()
	r.announce(ctx)
	return nil
}

// faultsOn: fault injection is enabled (SECKILL_FAULTS=on).
func faultsOn() bool { return strings.EqualFold(config.Get(config.EnvFaults, ""), "on") }

// openStrategies connects the lock backends, probes them once (so the first
// /api/strategies is already right), keeps probing them, and builds the
// strategies over them.
func (r *replica) openStrategies(ctx context.Context) {
	r.backends, r.closeBackends = lockBackends(r.cfg, r.log)
	r.backends.DB = r.db
	if faultsOn() {
		r.points = &faultpoint.Points{}
		r.backends.Faults = r.points
		if r.backends.Redis != nil {
			r.replyDrop = &faultpoint.ReplyDropper{} // idle until the drop_reply fault arms it
			r.backends.Redis.AddHook(r.replyDrop)
		}
	}
	// The ring's view of the replicas; named in announce, once the replica listens.
	r.backends.Ring = hashring.NewMembership(r.db, liveShops(r.db))
	detached := context.WithoutCancel(ctx) // the probes run until close, not until the signal
	probeAll(detached, r.backends, r.log)
	r.monitor = startLoop(detached, func(ctx context.Context) {
		monitorBackends(ctx, r.backends, r.log)
	})
	r.lockers = lockstrategy.NewInstances(r.backends)
}

// faultHooks are the replica's fault points as the road's hooks: nil
// (production, every point a no-op) when faults are off.
func (r *replica) faultHooks() faultpoint.Hooks {
	if r.points == nil {
		return nil
	}
	return r.points
}

// guards are the flash sale's guards in front of the order flow, and what
// the order routes check.
type guards struct {
	gate        *guard.Gate
	limits      *guard.Limiter     // the sales' limits and the order routes'
	orderTokens *guard.OrderTokens // keyed from the tickets' secret
}

// openGuards builds the guards: tickets and order tokens signed with the
// cluster's secret, rate limits and the sold-out cache over the
// strategies' Redis (when there is one).
func (r *replica) openGuards(ctx context.Context) (guards, error) {
	secret, err := guard.LoadSecret(ctx, r.db, r.cfg.TicketSecret)
	if err != nil {
		return guards{}, err
	}
	tickets := guard.NewTickets(secret)
	keyspace := r.db.Migrator().CurrentDatabase()
	r.soldOut = guard.NewSoldOutCache(r.db, r.backends.Redis, keyspace, r.log)
	r.soldOutLoop = startLoop(context.WithoutCancel(ctx), r.soldOut.Run)
	limits := guard.NewLimiter(r.backends.Redis, keyspace)
	return guards{gate: guard.NewGate(r.orders, tickets, limits, r.soldOut, r.live), limits: limits,
		orderTokens: guard.NewOrderTokens(secret)}, nil
}

// openServices builds the services the API serves from.
func (r *replica) openServices(ctx context.Context) error {
	r.metrics = metrics.New()
	r.live = metrics.NewLiveRecorder(r.metrics, r.log) // per-sale HDR figures; forwards to metrics for /metrics
	store := inventory.NewStore(r.db)
	r.metrics.SaleTruths(saleTruths(store), r.log)
	r.metrics.FaultKinds(faults.Names())
	r.orders = order.NewService(order.Config{ReplicaID: r.cfg.ReplicaID, LockWait: r.cfg.LockWait, Faults: r.faultHooks()},
		store, r.lockers, r.live, r.log)
	// Detached from the signal so that the final publish runs after the
	// HTTP shutdown let in-flight orders finish, and before the DB closes.
	r.publisher = startLoop(context.WithoutCancel(ctx), func(ctx context.Context) {
		if err := r.live.Run(ctx, r.db, r.cfg.ReplicaID); err != nil {
			r.log.Warn("live metrics: final publish failed", "err", err)
		}
	})
	// Fault injection acts on the same Redis nodes as the strategies.
	r.faults = faults.New(faults.Config{
		Enabled:        faultsOn(),
		RedisAddr:      r.cfg.RedisAddr,
		RedlockAddrs:   config.List(r.cfg.RedlockAddrs),
		SentinelAddrs:  config.List(r.cfg.SentinelAddrs),
		SentinelMaster: r.cfg.SentinelMaster,
		ReplyDrop:      r.replyDrop,
		Points:         r.points,
		ReplicaID:      r.cfg.ReplicaID,
		LockKey:        r.orders.LockKey,
		Events:         r.orders.Events(),
		ZooKeeper: func() (any, error) {
			return r.lockers.Locker("zookeeper", lockstrategy.Options{})
		},
		ZKEnsemble: zkensemble.FromEnv(),
		DBLink:     r.dbLink,
		Ring:       r.backends.Ring,
		Injected:   r.metrics.ObserveFault,
	}, store)
	sales := sale.New(r.db, r.lockers, r.orders)
	g, err := r.openGuards(ctx)
	if err != nil {
		return err
	}
	if err := r.openQueue(ctx, store); err != nil {
		return err
	}
	r.handler = httpapi.New(httpapi.Deps{Store: store, Orders: r.orders, Lockers: r.lockers, Metrics: r.metrics,
		AdminToken: r.cfg.AdminToken, ListenAddr: r.addr(), Log: r.log, ReplicaID: r.cfg.ReplicaID, Sales: sales,
		Runs: runs.New(r.db, sales), Lessons: lessondb.NewStore(r.db), Faults: r.faults,
		Gate: g.gate, SoldOut: r.soldOut, QueueRedis: r.backends.Redis,
		Ring:        r.backends.Ring,
		OrderTokens: g.orderTokens, Limits: g.limits, OrderRateIP: r.cfg.OrderRateIP, ClientIPs: r.cfg.ClientIPs,
		Pprof: config.Get(config.EnvPprof, "") == "on"})
	if r.opts.wrap != nil {
		r.handler = r.opts.wrap(r.handler)
	}
	return nil
}

// serve starts the HTTP server on the listener.
func (r *replica) serve() {
	r.server = httpapi.HTTPServer(r.handler, r.log)
	r.served = make(chan error, 1)
	go func() { r.served <- r.server.Serve(r.listener) }()
}

// announce puts this replica in the shared store (GET /api/replicas). The
// heartbeat follows the signal: on the way out the replica drops out of the
// list at once, while it drains.
func (r *replica) announce(ctx context.Context) {
	r.member = discovery.Member{ID: r.cfg.ReplicaID, Kind: discovery.KindShop, URL: advertiseURL(r.addr()), PID: os.Getpid()}
	r.backends.Ring.SetSelf(hashring.Member{ID: r.member.ID, URL: r.member.URL})
	r.heartbeat = startLoop(ctx, func(ctx context.Context) {
		if err := (discovery.Options{Log: r.log}).Heartbeat(ctx, r.db, r.member); err != nil {
			r.log.Warn("discovery: could not remove this replica's row; it drops out after the expiry", "err", err)
		}
	})
}

// addr is the address the replica listens on.
func (r *replica) addr() string { return r.listener.Addr().String() }

// wait blocks until ctx is done or the server stops on its own (the
// listener failed: nothing is left to drain).
func (r *replica) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-r.served:
		r.served = nil
		r.log.Error("server stopped", "err", err)
		return errShutdownIncomplete
	}
}

// close stops what open started, in this order, and returns every step's
// error joined:
//  1. the HTTP server: stop accepting, let in-flight requests finish (their
//     deferred unlocks release the locks);
//  2. the discovery heartbeat: the row is removed;
//  3. the faults still running: a slow_db hold owns a connection and a row
//     lock, a stop_process helper has yet to resume us;
//  4. the live figures: their final publish; the sold-out cache's loop;
//  5. the order service: it writes the last critical sections;
//  6. the strategies;
//  7. the backend probes, then the backends' connections;
//  8. the database, which every step above may still use.
func (r *replica) close() error {
	var errs []error
	errs = append(errs, r.stopHTTP())
	r.heartbeat.halt()
	if r.faults != nil {
		r.faults.Wait()
	}
	for _, l := range r.queueLoops {
		l.halt() // a consumer mid-batch finishes it: committed and acknowledged
	}
	r.publisher.halt()
	r.soldOutLoop.halt()
	if r.orders != nil {
		r.orders.Close()
	}
	if r.lockers != nil {
		if err := r.lockers.Close(); err != nil {
			r.log.Warn("closing strategies", "err", err)
			errs = append(errs, fmt.Errorf("closing strategies: %w", err))
		}
	}
	r.monitor.halt()
	if r.closeBackends != nil {
		r.closeBackends()
	}
	if r.db != nil {
		errs = append(errs, inventory.Close(r.db))
	}
	return errors.Join(errs...)
}

// stopHTTP shuts the server down gracefully, within shutdownTimeout, and
// closes the connections left after it.
func (r *replica) stopHTTP() error {
	if r.served == nil { // never started, or already stopped on its own
		return nil
	}
	r.log.Info("shutting down: finishing in-flight requests", "bound", shutdownTimeout.String())
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var err error
	if e := r.server.Shutdown(ctx); e != nil {
		r.log.Error("graceful shutdown incomplete; closing connections", "err", e)
		r.server.Close()
		err = fmt.Errorf("%w: %w", errShutdownIncomplete, e)
	}
	if e := <-r.served; !errors.Is(e, http.ErrServerClosed) {
		r.log.Error("server stopped", "err", e)
		err = errors.Join(err, fmt.Errorf("%w: %w", errShutdownIncomplete, e))
	}
	r.served = nil
	return err
}

// loop is a goroutine that runs until halted.
type loop struct {
	stop context.CancelFunc
	done chan struct{}
}

// startLoop runs fn in a goroutine with a ctx that halt (or parent) cancels.
func startLoop(parent context.Context, fn func(ctx context.Context)) *loop {
	ctx, stop := context.WithCancel(parent)
	l := &loop{stop: stop, done: make(chan struct{})}
	go func() { defer close(l.done); fn(ctx) }()
	return l
}

// halt cancels the loop and waits for it to return; a nil loop (never
// started) is already halted.
func (l *loop) halt() {
	if l == nil {
		return
	}
	l.stop()
	<-l.done
}
