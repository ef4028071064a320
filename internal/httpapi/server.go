// Package httpapi is the shop's HTTP API (gin, JSON everywhere): sales,
// orders, runs, lessons, faults, strategies, health and metrics. It parses
// requests, calls the services cmd/shop built and maps their answers; every
// error goes through the one map in wire/errors.go, so a client sees a code
// and a message, never SQL or a stack trace. Only it and its subpackages
// import gin.
//
//   - server.go: Deps, New and the route table (routes); middleware.go:
//     recovery, the body bound, the admin token; httpserver.go: the
//     http.Server's bounds;
//   - sales.go, sales_list.go, restock.go, share.go: sales;
//     orders.go, orderaccess.go, limits.go, clientip.go: orders and who
//     may read and pay them; queue.go: the order queue and reconciliation;
//   - faults.go, faults_forward.go: fault injection on this or another
//     replica;
//   - live.go, herd.go, history.go, timeline.go, ring.go, htmlpage.go: a
//     sale's read sides; replicas.go, system.go: the replicas, strategies,
//     health;
//   - matrix.go: the verdict matrix's runs, kept and served;
//   - class.go: a class's predictions (classapi) and share.go their vote
//     page's link and QR code;
//   - events.go: the live feed (GET /api/events), over eventhub's
//     broadcaster;
//   - static.go: the dashboard's files;
//   - runsapi: runs, lessons and the agents' endpoints; classapi: a
//     class's questions, votes and reveals; interviewapi: the interview
//     path; wire: the error
//     map and request decoding; eventhub: the live feed's broadcaster.
package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/classroom"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/guard"
	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/httpapi/eventhub"
	"github.com/seckill-lab/seckill/internal/httpapi/interviewapi"
	"github.com/seckill-lab/seckill/internal/httpapi/runsapi"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
	"github.com/seckill-lab/seckill/internal/metrics"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/share"
)

func init() {
	// Release mode: no route dump or debug warnings on stderr. Set once here
	// because gin keeps the mode in a process-wide variable.
	gin.SetMode(gin.ReleaseMode)
}

// Deps is what the API serves from; cmd/shop builds it.
type Deps struct {
	Store   *inventory.Store
	Orders  *order.Service
	Lockers *lockstrategy.Instances
	// Metrics is served at /metrics; it should be the Recorder that Orders
	// was built with. Nil means a fresh, empty set.
	Metrics *metrics.Metrics
	// Ping checks the database for /healthz; nil means pinging Store's pool.
	Ping func(ctx context.Context) error
	// AdminToken, when not empty, is the bearer token that administrative
	// writes (creating sales) require. From SECKILL_ADMIN_TOKEN.
	AdminToken string
	// ListenAddr is the address this replica listens on: the students'
	// link (GET /api/sales/{id}/share) is built on it.
	ListenAddr string
	// LANIP finds this machine's LAN address for a wildcard listener;
	// nil: share.LANIP.
	LANIP func() net.IP
	// Log receives errors only; nil discards them.
	Log *slog.Logger
	// ReplicaID is this replica's id in discovery: GET /api/faults shows it,
	// and POST /api/faults naming another replica is forwarded there.
	ReplicaID string
	// Sales creates sales for POST /api/sales and for the runs' steps.
	Sales *sale.Service
	// Runs keeps the load-test runs of /api/runs and the agents' shares.
	Runs *runs.Service
	// Lessons keeps the lesson runs of /api/lessons.
	Lessons *lessondb.Store
	// Faults is the fault injector of /api/faults.
	Faults *faults.Service
	// Matrix keeps the verdict matrix's runs of /api/matrix; nil: a store
	// over Store's database.
	Matrix *matrixdb.Store
	// Gate runs the flash-sale guards before Orders and issues purchase
	// tickets; nil: a gate with no rate limits and no sold-out cache whose
	// tickets are signed with a secret of this replica's own (fine for one
	// replica; replicas must share one).
	Gate *guard.Gate
	// SoldOut is the sold-out cache a restock clears; nil for none.
	SoldOut *guard.SoldOutCache
	// Ring is this replica's consistent-hash ring view (GET
	// /api/sales/{id}/ring); nil: the ring of this process alone.
	Ring *hashring.Membership
	// QueueRedis is the order queue's Redis (the default one), whose
	// durability /api/queue/durability reads and sets; nil for none.
	QueueRedis *redis.Client
	// EventStreamsPerClient and EventStreams cap the open GET /api/events
	// streams per client address and in all; 0 means
	// eventhub.DefaultPerClient and eventhub.DefaultTotal.
	EventStreamsPerClient int
	EventStreams          int
	// OrderTokens signs the order_token of every order answer and checks
	// the one presented to read or pay an order by its numeric id; nil:
	// signed with a secret of this replica's own (fine for one replica;
	// replicas must share one, as for the tickets).
	OrderTokens *guard.OrderTokens
	// Limits holds the per-client-IP budget of the order routes (GET
	// /api/orders/{ref}, POST /api/orders/{ref}/pay); nil: a limiter of this
	// replica's own.
	Limits *guard.Limiter
	// OrderRateIP is that budget in requests per second per client IP; 0:
	// no limit. From SECKILL_ORDER_RATE_IP.
	OrderRateIP int
	// ClientIPs finds the client behind the trusted proxies, for every
	// per-client limit (clientip.go); nil: the TCP peer. From
	// SECKILL_TRUSTED_PROXIES and SECKILL_CLIENT_IP_HEADER.
	ClientIPs *ClientIPs
	// Pprof serves Go's profiler under /debug/pprof/ (pprof.go), behind
	// the admin token when one is set. From SECKILL_PPROF=on.
	Pprof bool
}

// Server is the API as an http.Handler.
type Server struct {
	store      *inventory.Store
	orders     *order.Service
	lockers    *lockstrategy.Instances
	metrics    *metrics.Metrics
	ping       func(ctx context.Context) error
	adminHash  []byte        // sha256 of the token; nil: no token required
	listenAddr string        // Deps.ListenAddr (share.go)
	lanIP      func() net.IP // Deps.LANIP (share.go)
	log        *slog.Logger
	engine     *gin.Engine
	replicaID  string          // this replica's id in discovery
	sales      *sale.Service   // sale creation (sales.go)
	runs       *runs.Service   // load-test runs (runs.go)
	lessons    *lessondb.Store // lesson runs (lessons.go)
	faults     *faults.Service // fault injection (faults.go)
	matrix     *matrixdb.Store // the verdict matrix's runs (matrix.go)
	gate       *guard.Gate     // the guards in front of orders (orders.go)
	soldOut    *guard.SoldOutCache
	queueRedis *redis.Client        // the order queue's Redis (queue.go)
	ring       *hashring.Membership // this replica's ring view (ring.go)
	salesList  salesList            // GET /api/sales's shared answer (sales_list.go)
	eventHub   *eventhub.Hub        // GET /api/events's snapshots and caps
	verdicts   history.Verdicts     // each sale's last linearizability verdict (history.go)
	// Who may read and pay an order, and how often (orderaccess.go).
	orderTokens *guard.OrderTokens
	orderLimits *guard.Limiter
	orderRateIP int
	clientIPs   *ClientIPs       // who a request comes from (clientip.go)
	class       *classroom.Store // a class's questions and votes (class.go)
}

var _ http.Handler = (*Server)(nil)

// New builds the API over d. Store, Orders, Lockers, Sales, Runs, Lessons
// and Faults are required.
func New(d Deps) *Server {
	s := &Server{store: d.Store, orders: d.Orders, lockers: d.Lockers, metrics: d.Metrics, ping: d.Ping, log: d.Log,
		replicaID: d.ReplicaID, sales: d.Sales, runs: d.Runs, lessons: d.Lessons, faults: d.Faults, matrix: d.Matrix,
		gate: d.Gate, soldOut: d.SoldOut, queueRedis: d.QueueRedis, ring: d.Ring,
		orderTokens: d.OrderTokens, orderLimits: d.Limits, orderRateIP: d.OrderRateIP, clientIPs: d.ClientIPs}
	if s.orderTokens == nil {
		s.orderTokens = guard.NewOrderTokens([]byte(rand.Text()))
	}
	if s.orderLimits == nil {
		s.orderLimits = guard.NewLimiter(nil, "")
	}
	if s.gate == nil {
		s.gate = guard.NewGate(d.Orders, guard.NewTickets([]byte(rand.Text())), nil, nil, nil)
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.metrics == nil {
		s.metrics = metrics.New()
	}
	if s.ping == nil {
		s.ping = s.pingStore
	}
	if s.matrix == nil {
		s.matrix = matrixdb.NewStore(d.Store.DB())
	}
	s.class = classroom.NewStore(d.Store.DB())
	if d.AdminToken != "" {
		h := sha256.Sum256([]byte(d.AdminToken))
		s.adminHash = h[:]
	}
	s.listenAddr, s.lanIP = d.ListenAddr, d.LANIP
	if s.lanIP == nil {
		s.lanIP = share.LANIP
	}
	s.eventHub = eventhub.New(s.snapshotEvents, d.EventStreamsPerClient, d.EventStreams)
	s.engine = s.routes()
	if d.Pprof {
		s.pprofRoutes(s.engine)
	}
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.engine.ServeHTTP(w, r) }

// routes builds the gin engine: no request logger (the order path is hot;
// errors are logged where they are rendered), JSON 404/405, no redirects
// (an API client should get a clear 404, not a 307 to follow).
func (s *Server) routes() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	_ = e.SetTrustedProxies(nil) // gin's ClientIP is never used: s.clientIP reads the forwarding headers
	e.Use(s.recovery, s.limitBody)
	e.NoRoute(func(c *gin.Context) { wire.WriteError(c, s.log, wire.ErrNoRoute) })
	e.NoMethod(func(c *gin.Context) { wire.WriteError(c, s.log, wire.ErrNoMethod) })

	s.staticRoutes(e) // the dashboard at / and /assets/: static.go
	e.GET("/healthz", s.healthz)
	e.GET("/metrics", gin.WrapH(s.metrics.Handler()))
	api := e.Group("/api", compressReads())
	api.GET("/strategies", s.strategies)
	api.GET("/sales", s.listSales)
	api.POST("/sales", s.requireAdmin, s.createSale)
	api.GET("/sales/:id", s.getSale)
	api.GET("/sales/:id/live", s.saleLive)
	api.GET("/sales/:id/herd", s.getHerd)                  // herd.go
	api.GET("/sales/:id/share", s.getShare)                // share.go: the link students open
	api.GET("/sales/:id/qr.png", s.getShareQR)             // the same link as a QR code
	api.GET("/sales/:id/history", s.getHistory)            // history.go
	api.GET("/sales/:id/history.html", s.getHistoryHTML)   // porcupine's drawing
	api.GET("/sales/:id/timeline", s.getTimeline)          // timeline.go
	api.GET("/sales/:id/ring", s.getRing)                  // ring.go: the sale's owner on the hash ring
	api.GET("/sales/:id/timeline.html", s.getTimelineHTML) // the same, one self-contained file
	api.POST("/sales/:id/orders", s.placeOrder)
	api.POST("/sales/:id/ticket", s.issueTicket)              // a purchase ticket: writes nothing
	api.POST("/sales/:id/restock", s.requireAdmin, s.restock) // restock.go
	// The order queue, reservations and reconciliation: queue.go; who may
	// read and pay an order, and how often: orderaccess.go.
	api.GET("/orders/:ref", s.limitOrderRoutes, s.getOrder)
	api.POST("/orders/:ref/pay", s.limitOrderRoutes, s.payOrder) // the holder's own order: no admin token
	api.GET("/sales/:id/reconcile", s.getReconcile)
	api.POST("/sales/:id/reconcile", s.requireAdmin, s.postReconcile)
	api.GET("/queue", s.queueFigures)
	api.GET("/queue/durability", s.getDurability)
	api.PUT("/queue/durability", s.requireAdmin, s.putDurability)
	api.GET("/replicas", s.replicas)
	api.GET("/limits", s.limits) // the forms' input bounds: limits.go
	api.GET("/events", s.events) // the live feed: events.go
	runsDeps := runsapi.Deps{DB: s.store.DB(), Sales: s.sales, Runs: s.runs, Lessons: s.lessons, Log: s.log, Admin: s.requireAdmin}
	runsapi.Register(api, runsDeps)                  // runs, lessons and the agents' endpoints
	s.classRoutes(api, runsapi.NewStarter(runsDeps)) // a class's predictions: class.go
	s.faultRoutes(api)                               // fault injection: faults.go
	// The verdict matrix's runs (matrix.go): the newest kept, or the
	// predicted table; a run's report, up to MaxMatrixBytes.
	api.GET("/matrix", s.getMatrix)
	api.POST("/matrix", s.requireAdmin, s.postMatrix)
	interviewapi.Register(api, s.store.DB(), s.log) // the interview path, its figures measured here
	return e
}

func (s *Server) pingStore(ctx context.Context) error {
	sqlDB, err := s.store.DB().DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}
