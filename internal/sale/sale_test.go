package sale

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Test-only strategies, registered once for the test binary: the shared
// fakes (sale-test-needs-zk, sale-test-reserver (fakes),
// sale-test-reserver-broken, sale-test-broken-new) and one that renews its
// lease.
var fakes = locktest.RegisterFakes("sale-test-")

func init() {
	lockstrategy.Register(lockstrategy.Strategy{Name: "sale-test-renews", Description: "test", Renews: true,
		NewLocker: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Locker, error) {
			return nopLocker{}, nil
		}})
	// A stock kept in Redis, as redis-lua-stock's (which needs Redis).
	lockstrategy.Register(lockstrategy.Strategy{Name: "sale-test-queues", Description: "test", Queues: true,
		NewReserver: func(lockstrategy.Backends, lockstrategy.Options) (lockstrategy.Reserver, error) {
			return fakes, nil
		}})
}

// keys names lock keys as the order service would, under a test prefix.
type keys struct{}

func (keys) LockKey(id uint64) string { return "sale-test:sale:" + strconv.FormatUint(id, 10) }

// newService is a Service over the package's own test database with the
// database backend only.
func newService(t *testing.T) (*Service, *gorm.DB) {
	t.Helper()
	db := testenv.DB(t, "sale")
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{DB: db})
	t.Cleanup(func() { lockers.Close() })
	return New(db, lockers, keys{}), db
}

func countSales(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	var n int64
	if err := db.Model(&inventory.Sale{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func str(s string) *string { return &s }
func num(n int64) *int64   { return &n }
func flag(b bool) *bool    { return &b }

// Every wrong member comes back as a *FieldError naming it (and matching
// ErrInvalid), and nothing is written.
func TestCreateFieldErrors(t *testing.T) {
	s, db := newService(t)
	ok := func(edit func(*Spec)) Spec {
		spec := Spec{Strategy: str("mutex"), Stock: num(1)}
		edit(&spec)
		return spec
	}
	cases := []struct {
		name  string
		spec  Spec
		field string
		says  string
	}{
		{"strategy missing", ok(func(s *Spec) { s.Strategy = nil }), "strategy", "strategy is required; known: "},
		{"strategy empty", ok(func(s *Spec) { s.Strategy = str("") }), "strategy", "strategy is required"},
		{"strategy unknown", ok(func(s *Spec) { s.Strategy = str("nope") }), "strategy", `unknown strategy "nope"; known: `},
		{"strategy unknown, long", ok(func(s *Spec) { s.Strategy = str(strings.Repeat("x", 500)) }), "strategy", strings.Repeat("x", 64) + `..."`},
		{"strategy unavailable", ok(func(s *Spec) { s.Strategy = str("sale-test-needs-zk") }), "strategy", "it needs zookeeper, not all connected; available: "},
		{"stock missing", ok(func(s *Spec) { s.Stock = nil }), "stock", "stock is required (1..1000000)"},
		{"stock zero", ok(func(s *Spec) { s.Stock = num(0) }), "stock", "stock must be between 1 and 1000000"},
		{"stock too big", ok(func(s *Spec) { s.Stock = num(MaxStock + 1) }), "stock", "between 1 and"},
		{"work_ms negative", ok(func(s *Spec) { s.WorkMS = num(-1) }), "work_ms", "work_ms must be between 0 and 60000"},
		{"work_ms too big", ok(func(s *Spec) { s.WorkMS = num(MaxWorkMS + 1) }), "work_ms", "work_ms must be between"},
		{"ttl_ms negative", ok(func(s *Spec) { s.TTLMS = num(-1) }), "ttl_ms", "ttl_ms must be between 0 and 600000"},
		{"ttl_ms too big", ok(func(s *Spec) { s.TTLMS = num(MaxTTLMS + 1) }), "ttl_ms", "ttl_ms must be between"},
		{"per_user_limit negative", ok(func(s *Spec) { s.PerUserLimit = num(-1) }), "per_user_limit", "per_user_limit must be between 0 and 1000000"},
		{"per_user_limit too big", ok(func(s *Spec) { s.PerUserLimit = num(MaxPerUserLimit + 1) }), "per_user_limit", "per_user_limit must be between"},
		{"watchdog off, none to turn off", ok(func(s *Spec) { s.Watchdog = flag(false) }), "watchdog", `strategy "mutex" has no watchdog to turn off; only `},
		{"no_queue on a strategy without one", ok(func(s *Spec) { s.NoQueue = flag(true) }), "no_queue", `strategy "mutex" has no queue in front of its lock to turn off; only redlock has one`},
		{"name too long", ok(func(s *Spec) { s.Name = str(strings.Repeat("é", MaxNameLen+1)) }), "name", "name must be at most 100 characters"},
		{"product too long", ok(func(s *Spec) { s.Product = str(strings.Repeat("键", MaxProductLen+1)) }), "product", "product must be at most 100 characters, not 101"},
		{"order_mode unknown", ok(func(s *Spec) { s.OrderMode = str("later") }), "order_mode", `order_mode must be "sync" or "async", not "later"`},
		{"order_mode async on a lock", ok(func(s *Spec) { s.OrderMode = str("async") }), "order_mode", "order_mode async needs a strategy that keeps the stock in Redis"},
		{"work_ms past the persist bound of a synchronous redis-lua-stock", ok(func(s *Spec) { s.Strategy, s.WorkMS = str("sale-test-queues"), num(int64(MaxReservedWorkMS)+1) }),
			"work_ms", "work_ms must be at most 1500 for sale-test-queues in order_mode sync"},
		{"work_ms of 2 s on a synchronous redis-lua-stock", ok(func(s *Spec) { s.Strategy, s.WorkMS = str("sale-test-queues"), num(2000) }), "work_ms", "use order_mode async"},
		{"pay_within_ms negative", ok(func(s *Spec) { s.PayWithinMS = num(-1) }), "pay_within_ms", "pay_within_ms must be between 0 and 86400000"},
		{"pay_within_ms below the expiry's granularity", ok(func(s *Spec) { s.PayWithinMS = num(MinPayWithinMS - 1) }), "pay_within_ms", "pay_within_ms must be 0 (no reservation) or between 500"},
		{"combine on a strategy without a lock", ok(func(s *Spec) { s.Strategy, s.Combine = str("sale-test-queues"), flag(true) }), "combine", "combine needs a strategy that takes a lock"},
		{"combine in order_mode async", ok(func(s *Spec) { s.Strategy, s.Combine, s.OrderMode = str("sale-test-queues"), flag(true), str("async") }), "combine", "combine needs"},
		{"combine_max_batch without combine", ok(func(s *Spec) { s.CombineMaxBatch = num(5) }), "combine_max_batch", "combine_max_batch needs combine: true"},
		{"combine_max_wait_us with combine off", ok(func(s *Spec) { s.Combine, s.CombineMaxWaitUS = flag(false), num(5) }), "combine_max_wait_us", "needs combine: true"},
		{"stock_shards zero", ok(func(s *Spec) { s.Strategy, s.StockShards = str("db-conditional"), num(0) }), "stock_shards", "stock_shards must be between 1 and 64"},
		{"stock_shards past the bound", ok(func(s *Spec) { s.Strategy, s.StockShards = str("db-conditional"), num(65) }), "stock_shards", "stock_shards must be between 1 and 64"},
		{"stock_shards on a strategy that reads its one stock", ok(func(s *Spec) { s.StockShards = num(2) }), "stock_shards", "stock_shards above 1 needs a strategy that splits the stock (db-conditional, redis-lua-stock)"},
		{"stock_shards above the stock", ok(func(s *Spec) { s.Strategy, s.Stock, s.StockShards = str("db-conditional"), num(3), num(4) }), "stock_shards", "at most the stock"},
		{"combine_max_batch zero", ok(func(s *Spec) { s.Combine, s.CombineMaxBatch = flag(true), num(0) }), "combine_max_batch", "combine_max_batch must be between 1 and 1000"},
		{"combine_max_batch too big", ok(func(s *Spec) { s.Combine, s.CombineMaxBatch = flag(true), num(MaxCombineBatch+1) }), "combine_max_batch", "between 1 and 1000"},
		{"combine_max_wait_us negative", ok(func(s *Spec) { s.Combine, s.CombineMaxWaitUS = flag(true), num(-1) }), "combine_max_wait_us", "combine_max_wait_us must be between 0 and 100000"},
		{"combine_max_wait_us too big", ok(func(s *Spec) { s.Combine, s.CombineMaxWaitUS = flag(true), num(MaxCombineWaitUS+1) }), "combine_max_wait_us", "between 0 and 100000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := countSales(t, db)
			_, err := s.Create(context.Background(), c.spec)
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v (%T), want a *FieldError matching ErrInvalid", err, err)
			}
			if fe.Field != c.field || !strings.Contains(fe.Message, c.says) {
				t.Fatalf("field %q message %q; want field %q and a message with %q", fe.Field, fe.Message, c.field, c.says)
			}
			if after := countSales(t, db); after != before {
				t.Fatalf("a rejected spec wrote %d sale(s)", after-before)
			}
		})
	}
}

// Absent members take their defaults; a zero TTL is the default TTL, a
// blank name the strategy's, and the upper bounds are accepted.
func TestCreateDefaults(t *testing.T) {
	s, db := newService(t)
	got, err := s.Create(context.Background(), Spec{Strategy: str("mutex"), Stock: num(5)})
	if err != nil {
		t.Fatal(err)
	}
	want := inventory.Sale{ID: got.ID, Name: "mutex sale", Strategy: "mutex", InitialStock: 5, Stock: 5,
		TTLMS: DefaultTTLMS, Watchdog: true, PerUserLimit: DefaultPerUserLimit, Status: "open",
		CreatedAt: got.CreatedAt, UpdatedAt: got.UpdatedAt, OpensAt: got.OpensAt, SoldOutCache: true, OrderMode: inventory.OrderSync,
		StockShards: 1}
	if got.ID == 0 || got != want || got.CreatedAt.IsZero() || got.CreatedAt.Sub(got.OpensAt) > time.Second || got.OpensAt.After(got.CreatedAt) {
		t.Fatalf("created %+v, want %+v", got, want)
	}
	stored, err := inventory.NewStore(db).GetSale(context.Background(), got.ID)
	if err != nil || stored != got {
		t.Fatalf("stored %+v (%v), created %+v: the creator and a reader should see the same sale", stored, err, got)
	}

	got, err = s.Create(context.Background(), Spec{Name: str("   "), Strategy: str("none"), Stock: num(MaxStock),
		WorkMS: num(MaxWorkMS), TTLMS: num(0), Fencing: flag(true), PerUserLimit: num(0)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "none sale" || got.TTLMS != DefaultTTLMS || !got.Fencing || got.PerUserLimit != 0 ||
		got.WorkMS != MaxWorkMS || got.InitialStock != MaxStock {
		t.Fatalf("explicit values not kept: %+v", got)
	}
	if got.Product != "" {
		t.Fatalf("no product asked, got %q: the page says Flash sale #ID", got.Product)
	}
	got, err = s.Create(context.Background(), Spec{Name: str(" " + strings.Repeat("秒", MaxNameLen) + " "),
		Product:  str(" " + strings.Repeat("键", MaxProductLen) + "\n"),
		Strategy: str("none"), Stock: num(1), TTLMS: num(MaxTTLMS), PerUserLimit: num(MaxPerUserLimit)})
	if err != nil || got.Name != strings.Repeat("秒", MaxNameLen) || got.TTLMS != MaxTTLMS || got.PerUserLimit != MaxPerUserLimit ||
		got.Product != strings.Repeat("键", MaxProductLen) {
		t.Fatalf("upper bounds not accepted: %+v, %v", got, err)
	}
	got, err = s.Create(context.Background(), Spec{Strategy: str("mutex"), Stock: num(5), Combine: flag(true)})
	if err != nil || !got.Combine || got.CombineMaxBatch != DefaultCombineBatch || got.CombineMaxWaitUS != DefaultCombineWaitUS {
		t.Fatalf("combine without its options should take the defaults (%d, %d µs): %+v, %v", DefaultCombineBatch, DefaultCombineWaitUS, got, err)
	}
	got, err = s.Create(context.Background(), Spec{Strategy: str("mutex"), Stock: num(5), Combine: flag(true),
		CombineMaxBatch: num(MaxCombineBatch), CombineMaxWaitUS: num(0)})
	if err != nil || got.CombineMaxBatch != MaxCombineBatch || got.CombineMaxWaitUS != 0 {
		t.Fatalf("combine's bounds not kept: %+v, %v", got, err)
	}
	if stored, err := inventory.NewStore(s.db).GetSale(context.Background(), got.ID); err != nil || stored.Product != got.Product {
		t.Fatalf("product not stored: %q, %v", stored.Product, err)
	}
}

// The watchdog is on unless turned off, and only a renewing strategy can
// turn it off; LenientWatchdog never asks a strategy for what it lacks.
func TestWatchdogRule(t *testing.T) {
	s, _ := newService(t)
	for _, c := range []struct {
		strategy string
		watchdog *bool
		want     bool
	}{
		{"sale-test-renews", nil, true},
		{"sale-test-renews", flag(true), true},
		{"sale-test-renews", flag(false), false},
		{"mutex", flag(true), true},
		{"mutex", nil, true},
	} {
		got, err := s.Create(context.Background(), Spec{Strategy: str(c.strategy), Stock: num(1), Watchdog: c.watchdog})
		if err != nil || got.Watchdog != c.want {
			t.Errorf("%s watchdog %v: got %v, %v; want %v", c.strategy, c.watchdog, got.Watchdog, err, c.want)
		}
	}
	if w := LenientWatchdog("sale-test-renews", false); w == nil || *w {
		t.Errorf("LenientWatchdog(renewing, false) = %v, want false", w)
	}
	for _, c := range []struct {
		strategy string
		watchdog bool
	}{{"mutex", false}, {"sale-test-renews", true}, {"mutex", true}, {"nope", false}} {
		if w := LenientWatchdog(c.strategy, c.watchdog); w != nil {
			t.Errorf("LenientWatchdog(%s, %v) = %v, want nil (the default)", c.strategy, c.watchdog, *w)
		}
	}
}

// A strategy that keeps its stock outside the database gets it loaded under
// the sale's lock key; if loading fails, or the strategy cannot be built,
// the error is ErrStrategyUnavailable and no sale is left behind.
func TestCreateLoadsReserverStock(t *testing.T) {
	s, db := newService(t)
	got, err := s.Create(context.Background(), Spec{Strategy: str("sale-test-reserver"), Stock: num(42)})
	if err != nil {
		t.Fatal(err)
	}
	key := keys{}.LockKey(got.ID)
	if n, ok := fakes.Loaded(key); !ok || n != 42 {
		t.Fatalf("LoadStock(%s) = %d, %v; want 42", key, n, ok)
	}
	for _, name := range []string{"sale-test-reserver-broken", "sale-test-broken-new"} {
		before := countSales(t, db)
		_, err := s.Create(context.Background(), Spec{Strategy: str(name), Stock: num(1)})
		if !errors.Is(err, ErrStrategyUnavailable) || !strings.Contains(err.Error(), "10.0.0") {
			t.Errorf("%s: %v; want ErrStrategyUnavailable with the backend's error", name, err)
		}
		if countSales(t, db) != before {
			t.Fatalf("%s: a failed create left a sale", name)
		}
	}
}

// nopLocker is a strategy's locker that holds nothing.
type nopLocker struct{}

func (nopLocker) Lock(context.Context, string) (lockstrategy.Lease, error) {
	return lockstrategy.NopLease(), nil
}

// A sale created while the database does not answer fails with
// ErrDBUnavailable (503 db_unavailable, retry), not an internal error, and
// leaves no sale behind.
func TestCreateWhileCutOffTheDatabase(t *testing.T) {
	link, dsn, err := faults.NewDBLink(testenv.MySQLDSN(t, "sale"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inventory.Close(db) })
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{DB: db})
	t.Cleanup(func() { lockers.Close() })
	svc := New(db, lockers, keys{})
	before := countSales(t, db)
	link.Cut(3 * time.Second)
	_, err = svc.Create(context.Background(), Spec{Strategy: str("db-conditional"), Stock: num(5)})
	if !errors.Is(err, ErrDBUnavailable) {
		t.Errorf("Create during the cut: %v, want ErrDBUnavailable", err)
	}
	testenv.WaitFor(t, 10*time.Second, "the cut over", func() bool { return link.Left() == 0 })
	if n := countSales(t, db); n != before {
		t.Errorf("%d sales after a failed create, want %d", n, before)
	}
}
