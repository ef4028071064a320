package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// env is one API over the package's own test database (seckill_test_httpapi)
// with the DB backend only: strategies needing Redis or ZooKeeper then show
// as unavailable, which is one of the cases under test.
type env struct {
	db      *gorm.DB
	store   *inventory.Store
	lockers *lockstrategy.Instances
	metrics *metrics.Metrics
	srv     *Server
	logs    *logBuf
}

type envConfig struct {
	token    string
	ping     func(context.Context) error
	lockWait time.Duration
	db       *gorm.DB
	guards   bool // the gate with Redis rate limits and a running sold-out cache
	queue    bool // every backend, the order queue and a running consumer
	// streamsPerClient and streams cap GET /api/events (0: the defaults).
	streamsPerClient, streams int
	// orderRate limits the order routes per client IP (0: no limit),
	// through the guards' Redis limiter with withGuards.
	orderRate int
	// faultsRedis is the Redis node "redis" of the fault injector ("":
	// none); faults are on with it.
	faultsRedis string
	// clientIPs finds the client behind trusted proxies (nil: the peer).
	clientIPs *ClientIPs
}

// withClientIPs reads the client from c's trusted proxies' headers.
func withClientIPs(c *ClientIPs) func(*envConfig) { return func(cfg *envConfig) { cfg.clientIPs = c } }

// withOrderRate limits the order routes to n requests per second per IP.
func withOrderRate(n int) func(*envConfig) { return func(c *envConfig) { c.orderRate = n } }

// withQueue builds the lockers over every real backend and turns the async
// order mode on, with one consumer running, as cmd/shop does.
func withQueue(c *envConfig) { c.queue = true }

// withGuards builds the gate as cmd/shop does: rate limits and the
// sold-out cache over the real Redis, the cache's loop running.
func withGuards(c *envConfig) { c.guards = true }

func newEnv(t testing.TB, opts ...func(*envConfig)) *env {
	t.Helper()
	cfg := envConfig{lockWait: 5 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	db := cfg.db
	if db == nil {
		db = testenv.DB(t, "httpapi")
	}
	e := &env{db: db, store: inventory.NewStore(db), metrics: metrics.New(), logs: &logBuf{}}
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	backends := lockstrategy.Backends{DB: db}
	if cfg.queue {
		backends = testenv.Backends(t, "httpapi")
		backends.DB = db // the env's own database, when it has one
	}
	e.lockers = lockstrategy.NewInstances(withPoints(backends))
	t.Cleanup(func() { e.lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "httpapi-test", LockWait: cfg.lockWait, Faults: hooksOf(e.lockers)}, e.store, e.lockers, e.metrics, log)
	d := Deps{Store: e.store, Orders: orders, Lockers: e.lockers, Metrics: e.metrics,
		Ping: cfg.ping, AdminToken: cfg.token, Log: log, OrderRateIP: cfg.orderRate,
		EventStreamsPerClient: cfg.streamsPerClient, EventStreams: cfg.streams, ClientIPs: cfg.clientIPs}
	if cfg.faultsRedis != "" {
		d.Faults = newFaults(faults.Config{Enabled: true, RedisAddr: cfg.faultsRedis}, orders, e.lockers, e.store)
	}
	if cfg.queue {
		q := orderqueue.New(backends.Redis, db.Migrator().CurrentDatabase())
		orders.UseQueue(q)
		d.QueueRedis = backends.Redis
		c, err := orderqueue.NewConsumer(orderqueue.ConsumerConfig{Name: "httpapi-test", SaleKey: orders.LockKey,
			Persist: order.QueueCommit(e.store, "httpapi-test", nil)}, q, e.store, e.metrics, log)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); c.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	if cfg.guards {
		rdb := testenv.Redis(t)
		keyspace := fmt.Sprintf("httpapi_test_%d", time.Now().UnixNano()) // no other run's limits or messages
		d.SoldOut = guard.NewSoldOutCache(db, rdb, keyspace, log)
		d.Limits = guard.NewLimiter(rdb, keyspace)
		d.Gate = guard.NewGate(orders, guard.NewTickets([]byte("test secret")), d.Limits, d.SoldOut, e.metrics)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); d.SoldOut.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	e.srv = newServer(d)
	return e
}

// newServer is New over d with the services cmd/shop builds filled in where
// d leaves them out: sales, runs and lessons over d.Store's database, and a
// fault injector without Redis nodes, enabled by SECKILL_FAULTS=on as
// cmd/shop reads it.
func newServer(d Deps) *Server {
	if d.Sales == nil {
		d.Sales = sale.New(d.Store.DB(), d.Lockers, d.Orders)
	}
	if d.Runs == nil {
		d.Runs = runs.New(d.Store.DB(), d.Sales)
	}
	if d.Lessons == nil {
		d.Lessons = lessondb.NewStore(d.Store.DB())
	}
	if d.Faults == nil {
		enabled := strings.EqualFold(config.Get(config.EnvFaults, ""), "on")
		d.Faults = newFaults(faults.Config{Enabled: enabled}, d.Orders, d.Lockers, d.Store)
	}
	return New(d)
}

// withFaultsRedis turns faults on, with addr as their Redis node "redis".
func withFaultsRedis(addr string) func(*envConfig) {
	return func(c *envConfig) { c.faultsRedis = addr }
}

func withToken(tok string) func(*envConfig) { return func(c *envConfig) { c.token = tok } }

// do sends one request through the handler; header is "Name: value" pairs.
func (e *env) do(method, path string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	for _, h := range header {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec
}

func (e *env) post(path, body string, header ...string) *httptest.ResponseRecorder {
	return e.do(http.MethodPost, path, strings.NewReader(body), header...)
}

func (e *env) get(path string) *httptest.ResponseRecorder {
	return e.do(http.MethodGet, path, nil)
}

// createSale creates a sale that must succeed.
func (e *env) createSale(t testing.TB, body string) inventory.SaleView {
	t.Helper()
	rec := e.post("/api/sales", body)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create sale %s: %d %s", body, rec.Code, rec.Body)
	}
	var v inventory.SaleView
	mustJSON(t, rec, &v)
	return v
}

func (e *env) countSales(t testing.TB) int64 {
	t.Helper()
	var n int64
	if err := e.db.Model(&inventory.Sale{}).Count(&n).Error; err != nil {
		t.Fatalf("count sales: %v", err)
	}
	return n
}

func (e *env) countOrders(t testing.TB, saleID uint64) int64 {
	t.Helper()
	var n int64
	if err := e.db.Model(&inventory.Order{}).Where("sale_id = ?", saleID).Count(&n).Error; err != nil {
		t.Fatalf("count orders: %v", err)
	}
	return n
}

func mustJSON(t testing.TB, rec *httptest.ResponseRecorder, into any) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON; body %s", ct, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), into); err != nil {
		t.Fatalf("body is not the expected JSON: %v: %s", err, rec.Body)
	}
}

// wantError checks status and the error body's code (and field, when given).
func wantError(t testing.TB, rec *httptest.ResponseRecorder, status int, code, field string) wire.Body {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	var b wire.Body
	mustJSON(t, rec, &b)
	if b.Error != code || b.Message == "" {
		t.Fatalf("error %q message %q, want code %q and a message", b.Error, b.Message, code)
	}
	if field != "" && b.Field != field {
		t.Fatalf("field %q, want %q (message %q)", b.Field, field, b.Message)
	}
	return b
}

// logBuf collects log output safely across handler goroutines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Test-only strategies, registered once for the test binary: test-needs-zk
// (its backend this env lacks), test-reserver (reserved), test-reserver-broken
// and test-broken-new.
var reserved = locktest.RegisterFakes("test-")

// withPoints gives b fault points of its own, as cmd/shop gives a replica
// when faults are on (the strategies, the order service and the faults
// service share them).
func withPoints(b lockstrategy.Backends) lockstrategy.Backends {
	if b.Faults == nil {
		b.Faults = &faultpoint.Points{}
	}
	return b
}

// pointsOf are the fault points of lockers' backends.
func pointsOf(lockers *lockstrategy.Instances) *faultpoint.Points {
	p, _ := lockers.Backends().Faults.(*faultpoint.Points)
	return p
}

// hooksOf are lockers' fault points as the order path's hooks.
func hooksOf(lockers *lockstrategy.Instances) faultpoint.Hooks {
	if p := pointsOf(lockers); p != nil {
		return p
	}
	return nil
}

// newFaults is faults.New as cmd/shop builds it: over the replica's fault
// points, order service and zookeeper strategy.
func newFaults(cfg faults.Config, orders *order.Service, lockers *lockstrategy.Instances, store *inventory.Store) *faults.Service {
	if lockers != nil {
		cfg.Points = pointsOf(lockers)
		cfg.ZooKeeper = func() (any, error) { return lockers.Locker("zookeeper", lockstrategy.Options{}) }
	}
	if orders != nil {
		cfg.ReplicaID, cfg.LockKey, cfg.Events = orders.ReplicaID(), orders.LockKey, orders.Events()
	}
	return faults.New(cfg, store)
}
