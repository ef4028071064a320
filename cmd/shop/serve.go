package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/httpapi"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
)

// shutdownTimeout bounds the graceful shutdown: long enough for in-flight
// orders (lock wait 10 s + work) to finish and unlock.
const shutdownTimeout = 30 * time.Second

// serveOptions are the outputs of serve and, for tests, its seams.
type serveOptions struct {
	stdout, stderr io.Writer
	ready          func(addr string)               // called once listening
	wrap           func(http.Handler) http.Handler // wraps the API handler
}

// serve runs one replica until ctx is done, then shuts down gracefully:
// stop accepting, let in-flight orders finish (their deferred unlocks
// release the locks), close the strategies, then the database. It returns
// the exit code.
func serve(ctx context.Context, cfg serveConfig, o serveOptions) int {
	log := slog.New(slog.NewJSONHandler(o.stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if refuseBeyondLoopback(cfg, o.stderr) {
		return 2
	}

	if _, err := runMigrations(ctx, cfg.MySQLDSN, log); err != nil {
		fmt.Fprintf(o.stderr, "shop: %v\n", err)
		return 1
	}
	db, err := inventory.Open(ctx, inventory.Config{DSN: cfg.MySQLDSN})
	if err != nil {
		fmt.Fprintf(o.stderr, "shop: %v\n", err)
		return 1
	}
	defer inventory.Close(db) // last: the strategies below may use it until closed

	backends, closeBackends := lockBackends(cfg, log)
	backends.DB = db
	defer closeBackends()
	monitorCtx, monitorStop := context.WithCancel(context.WithoutCancel(ctx))
	probeAll(monitorCtx, backends, log) // the first /api/strategies is already right
	monitorDone := make(chan struct{})
	go func() { defer close(monitorDone); monitorBackends(monitorCtx, backends, log) }()
	defer func() { monitorStop(); <-monitorDone }()
	lockers := lockstrategy.NewInstances(backends)
	defer func() {
		if err := lockers.Close(); err != nil {
			log.Warn("closing strategies", "err", err)
		}
	}()

	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		fmt.Fprintf(o.stderr, "shop: listen: %v\n", err)
		return 1
	}
	if cfg.ReplicaID == "" {
		cfg.ReplicaID = defaultReplicaID(ln.Addr().String())
	}
	m := metrics.New()
	live := metrics.NewLiveRecorder(m, log) // per-sale HDR figures; forwards to m for /metrics
	store := inventory.NewStore(db)
	orders := order.NewService(order.Config{ReplicaID: cfg.ReplicaID, LockWait: cfg.LockWait}, store, lockers, live, log)
	defer orders.Close() // after Shutdown (defers run last-first): writes the last critical sections
	// Publish live figures every second. Detached from the signal so that the
	// final publish runs after Shutdown let in-flight orders finish, and
	// before the DB closes.
	liveCtx, liveStop := context.WithCancel(context.WithoutCancel(ctx))
	liveDone := make(chan struct{})
	go func() {
		defer close(liveDone)
		if err := live.Run(liveCtx, db, cfg.ReplicaID); err != nil {
			log.Warn("live metrics: final publish failed", "err", err)
		}
	}()
	defer func() { liveStop(); <-liveDone }()
	// Fault injection acts on the same Redis nodes as the strategies.
	faultsSvc := faults.New(faults.Config{
		Enabled:      strings.EqualFold(config.Get(config.EnvFaults, ""), "on"),
		RedisAddr:    cfg.RedisAddr,
		RedlockAddrs: config.List(cfg.RedlockAddrs),
	}, orders, lockers, store)
	// After Shutdown, before the DB closes: a slow_db hold still owns a
	// connection and a row lock; a stop_process helper has yet to resume us.
	defer faultsSvc.Wait()
	var handler http.Handler = httpapi.New(httpapi.Deps{Store: store, Orders: orders, Lockers: lockers,
		Metrics: m, AdminToken: cfg.AdminToken, Log: log, ReplicaID: cfg.ReplicaID, Faults: faultsSvc})
	if o.wrap != nil {
		handler = o.wrap(handler)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second, // slow-header clients do not pin connections
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: an order may legitimately wait lock-wait + work_ms.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	addr := ln.Addr().String()
	// Announce this replica in the shared store (GET /api/replicas). On the
	// way out the heartbeat stops first, so the replica drops out of the
	// list while it drains; the wait is deferred before the database closes.
	member := discovery.Member{ID: cfg.ReplicaID, Kind: discovery.KindShop, URL: advertiseURL(addr), PID: os.Getpid()}
	hbCtx, hbStop := context.WithCancel(ctx)
	hbDone := make(chan struct{})
	go func() {
		defer close(hbDone)
		if err := (discovery.Options{Log: log}).Heartbeat(hbCtx, db, member); err != nil {
			log.Warn("discovery: could not remove this replica's row; it drops out after the expiry", "err", err)
		}
	}()
	defer func() { hbStop(); <-hbDone }()

	log.Info("serving", "addr", addr, "replica", cfg.ReplicaID, "url", member.URL, "strategies", available(backends),
		"admin_token", cfg.AdminToken != "", "faults", faultsSvc.Enabled())
	if o.ready != nil {
		o.ready(addr)
	}

	select {
	case <-ctx.Done():
	case err := <-served: // the listener failed: nothing left to shut down gracefully
		log.Error("server stopped", "err", err)
		return 1
	}
	log.Info("shutting down: finishing in-flight requests", "bound", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	code := 0
	if err := srv.Shutdown(sctx); err != nil {
		log.Error("graceful shutdown incomplete; closing connections", "err", err)
		srv.Close()
		code = 1
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		log.Error("server stopped", "err", err)
		code = 1
	}
	log.Info("stopped", "code", code)
	return code
}

// available lists the strategies these backends can run, for the start log.
func available(b lockstrategy.Backends) []string {
	var out []string
	for _, s := range lockstrategy.All() {
		if s.Available(b) == nil {
			out = append(out, s.Name)
		}
	}
	return out
}

// dashboardURL is the URL to open for a listener: a wildcard host becomes
// 127.0.0.1, which a browser on this machine can reach.
func dashboardURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// refuseBeyondLoopback reports (and explains on stderr) a listen address
// beyond loopback without an admin token: anyone who can reach the port
// could otherwise create sales.
func refuseBeyondLoopback(cfg serveConfig, stderr io.Writer) bool {
	if loopbackOnly(cfg.HTTPAddr) || cfg.AdminToken != "" {
		return false
	}
	fmt.Fprintf(stderr, "shop: refusing to listen on %s, beyond loopback, without %s: anyone who can reach\n"+
		"the port could create sales. Set %s=<secret> (clients then send \"Authorization: Bearer <secret>\"),\n"+
		"or listen on 127.0.0.1.\n", cfg.HTTPAddr, config.EnvAdminToken, config.EnvAdminToken)
	return true
}

// advertiseURL is the URL other replicas, agents and the dashboard reach
// this replica at. A wildcard listener (0.0.0.0:8080 in a container) is
// announced under the hostname, which the other containers of a compose
// project resolve (compose sets hostname: to the service name).
func advertiseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "127.0.0.1"
		}
	}
	return "http://" + net.JoinHostPort(host, port)
}
