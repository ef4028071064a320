package order_test

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// roundTrips counts what one order sends to the database and to Redis: the
// statements and transactions of the calls made under a ctx that carries
// it (countRoundTrips). Writers in the background (the section log, the
// history, a watchdog) run on contexts of their own and are not counted.
type roundTrips struct {
	statements   atomic.Int64 // SQL statements, BEGIN and COMMIT/ROLLBACK excluded
	transactions atomic.Int64
	redis        atomic.Int64 // Redis commands (a pipeline counts each of its commands)

	mu      sync.Mutex
	queries []string // the statements, in the order sent
}

// sent is the statements of the counted calls, in the order sent.
func (c *roundTrips) sent() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.queries)
}

// dbRoundTrips is what the database was asked: every statement plus a BEGIN
// and a COMMIT (or ROLLBACK) per transaction.
func (c *roundTrips) dbRoundTrips() int64 {
	return c.statements.Load() + 2*c.transactions.Load()
}

type roundTripsKey struct{}

// countRoundTrips makes the database and Redis calls made under the
// returned ctx count in c.
func countRoundTrips(ctx context.Context, c *roundTrips) context.Context {
	return context.WithValue(ctx, roundTripsKey{}, c)
}

func roundTripsOf(ctx context.Context) *roundTrips {
	c, _ := ctx.Value(roundTripsKey{}).(*roundTrips)
	return c
}

// countingBackends is b with its database and Redis clients counting: the
// database through a connection pool that counts (a new gorm handle over
// b.DB's pool), Redis through a hook.
func countingBackends(tb testing.TB, b lockstrategy.Backends) lockstrategy.Backends {
	tb.Helper()
	sqlDB, err := b.DB.DB()
	if err != nil {
		tb.Fatal(err)
	}
	db, err := gorm.Open(mysql.New(mysql.Config{Conn: countingPool{sqlDB}}),
		&gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		tb.Fatal(err)
	}
	b.DB = db
	hook := countingHook{}
	for _, c := range append([]*redis.Client{b.Redis, b.Sentinel}, b.Redlock...) {
		if c != nil {
			c.AddHook(hook)
		}
	}
	return b
}

// countingPool is a gorm connection pool that counts the statements and
// transactions of a counted ctx.
type countingPool struct{ db *sql.DB }

func (p countingPool) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.db.PrepareContext(ctx, query)
}

func (p countingPool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	countStatement(ctx, query)
	return p.db.ExecContext(ctx, query, args...)
}

func (p countingPool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	countStatement(ctx, query)
	return p.db.QueryContext(ctx, query, args...)
}

func (p countingPool) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	countStatement(ctx, query)
	return p.db.QueryRowContext(ctx, query, args...)
}

func (p countingPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	if c := roundTripsOf(ctx); c != nil {
		c.transactions.Add(1)
		if opts != nil && opts.Isolation != sql.LevelDefault {
			c.statements.Add(1) // the driver's SET TRANSACTION ISOLATION LEVEL before its BEGIN
		}
	}
	tx, err := p.db.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &countingTx{tx}, nil
}

// GetDBConn lets gorm's DB() find the *sql.DB under the pool.
func (p countingPool) GetDBConn() (*sql.DB, error) { return p.db, nil }

// countingTx is one transaction of a countingPool.
type countingTx struct{ tx *sql.Tx }

func (t *countingTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, query)
}

func (t *countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	countStatement(ctx, query)
	return t.tx.ExecContext(ctx, query, args...)
}

func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	countStatement(ctx, query)
	return t.tx.QueryContext(ctx, query, args...)
}

func (t *countingTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	countStatement(ctx, query)
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t *countingTx) Commit() error { return t.tx.Commit() }

func (t *countingTx) Rollback() error { return t.tx.Rollback() }

func countStatement(ctx context.Context, query string) {
	if c := roundTripsOf(ctx); c != nil {
		c.statements.Add(1)
		c.mu.Lock()
		c.queries = append(c.queries, query)
		c.mu.Unlock()
	}
}

// countingHook counts the Redis commands of a counted ctx.
type countingHook struct{}

func (countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if c := roundTripsOf(ctx); c != nil {
			c.redis.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if c := roundTripsOf(ctx); c != nil {
			c.redis.Add(int64(len(cmds)))
		}
		return next(ctx, cmds)
	}
}
