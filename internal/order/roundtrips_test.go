package order_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// orderRoundTrips is what one order of a strategy sent, on a sale whose
// options are cached and whose strategy is built (the order after a first one).
type orderRoundTrips struct {
	strategy                   string
	perUserLimit               int
	fenced                     bool
	statements, transactions   int64
	dbRoundTrips, redisCommand int64
	sent                       []string // the SQL statements, in order
}

// The most one order may cost on the two paths that take no lock, by
// per-user limit: a regression that adds a statement to them fails here.
// db-conditional: the INSERT and the conditional UPDATE (the minimal shop's
// two), with a limit of 1 too: the INSERT's unique key is the limit's check;
// db-optimistic: the read, the INSERT, the CAS UPDATE and the SET
// TRANSACTION of its isolation.
var maxStatements = map[int]map[string]int64{
	0: {"db-conditional": 2, "db-optimistic": 4},
	1: {"db-conditional": 2, "db-optimistic": 4},
}

// newCountingService is newService over countingBackends, with recorder
// rec (may be nil): the orders placed under countRoundTrips count.
func newCountingService(tb testing.TB, rec order.Recorder) (*inventory.Store, *lockstrategy.Instances, *order.Service) {
	tb.Helper()
	b := countingBackends(tb, testenv.Backends(tb, "order"))
	store := inventory.NewStore(b.DB)
	lockers := lockstrategy.NewInstances(b)
	tb.Cleanup(func() { lockers.Close() })
	svc := order.NewService(order.Config{ReplicaID: "roundtrips"}, store, lockers, rec, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tb.Cleanup(svc.Close)
	return store, lockers, svc
}

// combinedOnce are the strategies whose order is also measured on a
// combining sale (a batch of one: the batch's statements).
var combinedOnce = map[string]bool{"redis": true, "db-pessimistic": true}

// maxStatementsAny bounds every strategy's order: a fenced lock's claim (or
// db-pessimistic's row lock), then the read, the per-user count, the write
// and the INSERT, with a statement to spare.
const maxStatementsAny = 6

// measureRoundTrips places one order on a fresh sale for every registered
// strategy (sync, per-user limit 1, fenced where the strategy gives tokens;
// the lock-free ones also without a limit) and counts the SQL statements, transactions and Redis commands of the
// second order, the first having read the sale and built the strategy.
// ZooKeeper's and etcd's round trips are not counted.
func measureRoundTrips(tb testing.TB) []orderRoundTrips {
	tb.Helper()
	store, lockers, svc := newCountingService(tb, nil)
	ctx := context.Background()
	var out []orderRoundTrips
	type run struct {
		st      lockstrategy.Strategy
		limit   int
		combine bool
	}
	var runs []run
	for _, st := range lockstrategy.All() {
		if strings.Contains(st.Name, "test-") {
			continue // registered by this package's tests, not the shop's
		}
		runs = append(runs, run{st, 1, false})
		if _, ok := maxStatements[0][st.Name]; ok {
			runs = append(runs, run{st, 0, false})
		}
		if combinedOnce[st.Name] {
			runs = append(runs, run{st, 1, true})
		}
	}
	for _, r := range runs {
		st := r.st
		sale := saletest.Make(tb, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("roundtrips " + st.Name),
			Strategy: &st.Name, Stock: new(int64(10)), TTLMS: new(int64(2000)), PerUserLimit: new(int64(r.limit)), Fencing: &st.Tokens,
			Combine: &r.combine})
		if _, err := svc.Place(ctx, sale.ID, "first"); err != nil {
			tb.Fatalf("%s: the first order: %v", st.Name, err)
		}
		var c roundTrips
		if _, err := svc.Place(countRoundTrips(ctx, &c), sale.ID, "counted"); err != nil {
			tb.Fatalf("%s: the counted order: %v", st.Name, err)
		}
		name := st.Name
		if r.combine {
			name += "+combine"
		}
		out = append(out, orderRoundTrips{strategy: name, perUserLimit: r.limit, fenced: sale.Fencing, statements: c.statements.Load(),
			transactions: c.transactions.Load(), dbRoundTrips: c.dbRoundTrips(), redisCommand: c.redis.Load(), sent: c.sent()})
	}
	return out
}

// roundTripsTable is the measured figures as a table, one strategy a line.
func roundTripsTable(rows []orderRoundTrips) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "one order, after the sale is cached; not counted: ZooKeeper and etcd round trips, db-lock-table's lock statements (its own *sql.DB)\n")
	fmt.Fprintf(&sb, "%-26s %5s %-6s %5s %4s %9s %6s\n", "strategy", "limit", "fenced", "sql", "tx", "db trips", "redis")
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-26s %5d %-6v %5d %4d %9d %6d\n", r.strategy, r.perUserLimit, r.fenced, r.statements, r.transactions,
			r.dbRoundTrips, r.redisCommand)
	}
	fmt.Fprintf(&sb, "minimal shop: UPDATE ... WHERE stock > 0 + INSERT in one transaction: sql 2, tx 1, db trips 4\n")
	return sb.String()
}

// TestOrderRoundTrips prints what one order costs on every strategy and
// holds the paths to their budget: every order is one transaction at most
// and maxStatementsAny statements, and db-conditional and db-optimistic send no statement beyond
// maxStatements (db-conditional: the minimal shop's two). On every
// strategy the stock write is the order's last statement: the sale's row
// is held from its UPDATE to the COMMIT only.
func TestOrderRoundTrips(t *testing.T) {
	rows := measureRoundTrips(t)
	t.Log("\n" + roundTripsTable(rows))
	for _, r := range rows {
		if r.transactions > 1 {
			t.Errorf("%s: one order ran %d transactions, want at most 1", r.strategy, r.transactions)
		}
		if r.statements > maxStatementsAny {
			t.Errorf("%s: one order sent %d statements, want at most %d", r.strategy, r.statements, maxStatementsAny)
		}
		if r.statements == 0 {
			t.Errorf("%s: no statement counted: the counter is not on the order's path", r.strategy)
		}
		if after := statementsAfterStockWrite(r.sent); len(after) > 0 && !holdsRowPerBatch[r.strategy] {
			t.Errorf("%s, per-user limit %d: the sale's row, locked by the stock write, stays held through %q before the COMMIT; "+
				"the stock write must be the order's last statement (all sent: %q)", r.strategy, r.perUserLimit, after, r.sent)
		}
		if most, ok := maxStatements[r.perUserLimit][r.strategy]; ok && r.statements > most {
			t.Errorf("%s, per-user limit %d: one order sent %d statements, want at most %d", r.strategy, r.perUserLimit,
				r.statements, most)
		}
	}
}

// holdsRowPerBatch are the strategies whose orders are written by a group
// commit (commitReserved): it locks the sale's row first, once per batch
// of the replica's orders, so that its plain reads count every committed
// order; the row is held for the batch's statements, once per batch.
var holdsRowPerBatch = map[string]bool{"redis-lua-stock": true}

// statementsAfterStockWrite is what an order sent after its first write of
// the sale's stock (an UPDATE of sales that sets stock, alone or in the
// compound statement that commits with it): the time the hot row is held
// beyond its own write and the COMMIT.
func statementsAfterStockWrite(sent []string) []string {
	for i, q := range sent {
		if q := strings.ToLower(strings.Join(strings.Fields(q), " ")); strings.Contains(q, "update sales set stock") {
			return sent[i+1:]
		}
	}
	return nil
}

// BenchmarkOrderRoundTrips is TestOrderRoundTrips's table for make bench:
//
//	go test -run '^$' -bench BenchmarkOrderRoundTrips -benchtime 1x ./internal/order/
func BenchmarkOrderRoundTrips(b *testing.B) {
	for range b.N {
		start := time.Now()
		rows := measureRoundTrips(b)
		b.Logf("\n%s(measured in %v)", roundTripsTable(rows), time.Since(start).Round(time.Millisecond))
	}
}
