package orderqueue_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/reconcile"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// lab is one "replica" worth of the order flow over the real services:
// the order service with its queue, and a consumer that can be started,
// killed mid-batch and left dead.
type lab struct {
	t       *testing.T
	b       lockstrategy.Backends
	store   *inventory.Store
	lockers *lockstrategy.Instances
	orders  *order.Service
	queue   *orderqueue.Queue
	sales   *sale.Service
}

// newLab builds a lab on database seckill_test_orderqueue and rdb (the
// shared Redis when nil).
func newLab(t *testing.T, rdb *redis.Client) *lab {
	t.Helper()
	b := testenv.Backends(t, "orderqueue")
	if rdb != nil {
		b.Redis = rdb
	}
	l := &lab{t: t, b: b, store: inventory.NewStore(b.DB), lockers: lockstrategy.NewInstances(b)}
	t.Cleanup(func() { l.lockers.Close() })
	l.orders = order.NewService(order.Config{ReplicaID: "lab"}, l.store, l.lockers, nil, quiet)
	t.Cleanup(l.orders.Close)
	l.queue = orderqueue.New(b.Redis, b.DB.Migrator().CurrentDatabase())
	l.orders.UseQueue(l.queue)
	l.sales = sale.New(b.DB, l.lockers, l.orders)
	return l
}

// consumer starts a consumer named name; die is what its kill does (the
// test cannot SIGKILL itself): it ends the consumer's goroutine where it
// stands, as a dead process leaves its entries.
func (l *lab) consumer(name string, claimIdle time.Duration) (*orderqueue.Consumer, func()) {
	return l.consumerWith(name, claimIdle, nil)
}

// consumerWith is consumer with the fault points hooks.
func (l *lab) consumerWith(name string, claimIdle time.Duration, hooks faultpoint.Hooks) (*orderqueue.Consumer, func()) {
	c, err := orderqueue.NewConsumer(orderqueue.ConsumerConfig{Name: name, SaleKey: l.orders.LockKey, ClaimIdle: claimIdle,
		Faults: hooks, Persist: order.QueueCommit(l.store, name, hooks)}, l.queue, l.store, nil, quiet)
	if err != nil {
		l.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx) }()
	stop := func() { cancel(); <-done }
	l.t.Cleanup(stop)
	return c, stop
}

// newSale makes a sale of strategy with stock, async unless sync.
func (l *lab) newSale(strategy string, stock int64, mode string, payWithinMS int64) inventory.Sale {
	l.t.Helper()
	return saletest.Make(l.t, l.sales, sale.Spec{Strategy: &strategy, Stock: &stock, OrderMode: &mode, PayWithinMS: &payWithinMS})
}

// herd sends buyers orders (users u0..u<buyers-1>) at once and returns
// the tickets of the 202s, failing on any answer but 202, sold out and
// limit reached.
func (l *lab) herd(saleID uint64, buyers int, user func(i int) string) []string {
	l.t.Helper()
	var mu sync.Mutex
	var tickets []string
	var wg sync.WaitGroup
	errs := make(chan error, buyers)
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, _, err := l.orders.Buy(context.Background(), order.Purchase{SaleID: saleID, UserID: user(i)})
			switch {
			case err == nil && o.Status == inventory.StatusPending && o.OrderTicket != nil:
				mu.Lock()
				tickets = append(tickets, *o.OrderTicket)
				mu.Unlock()
			case errors.Is(err, order.ErrSoldOut) || errors.Is(err, order.ErrLimitReached):
			default:
				errs <- fmt.Errorf("order of %s: %+v %v", user(i), o, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		l.t.Fatal(err)
	}
	return tickets
}

// drained waits until no ticket of sale is in flight.
func (l *lab) drained(saleID uint64) {
	l.t.Helper()
	testenv.WaitFor(l.t, 60*time.Second, "the queue to drain", func() bool {
		f, err := l.queue.Figures(context.Background(), l.orders.LockKey(saleID))
		return err == nil && f.InFlight == 0
	})
}

// states looks every ticket up: how many are in each state, and how many
// are lost (not found).
func (l *lab) states(tickets []string) map[string]int {
	l.t.Helper()
	n := map[string]int{}
	for _, tk := range tickets {
		st, found, err := l.queue.Lookup(context.Background(), l.b.DB, l.orders.LockKey, tk)
		if err != nil {
			l.t.Fatal(err)
		}
		if !found {
			n["lost"]++
			continue
		}
		n[st.State]++
	}
	return n
}

// checkTruth asserts the invariants from the database and Redis: nothing
// oversold or duplicated, every order of an async sale carries a ticket and
// no ticket has two orders, and Redis's stock reconciles (drift 0).
func (l *lab) checkTruth(s inventory.Sale) inventory.SaleView {
	l.t.Helper()
	return l.checkTruthAnyMode(s)
}

// checkTruthAnyMode is checkTruth for a sale whose strategy keeps its stock
// in Redis, in either mode (both give every order its unit's ticket).
func (l *lab) checkTruthAnyMode(s inventory.Sale) inventory.SaleView {
	l.t.Helper()
	ctx := context.Background()
	got, err := l.store.GetSale(ctx, s.ID)
	if err != nil {
		l.t.Fatal(err)
	}
	v, err := l.store.View(ctx, got)
	if err != nil {
		l.t.Fatal(err)
	}
	if v.Oversold != 0 || v.LostUpdates != 0 || v.Duplicates != 0 {
		l.t.Fatalf("sale %d: oversold %d, lost updates %d, duplicates %d", s.ID, v.Oversold, v.LostUpdates, v.Duplicates)
	}
	var noTicket, tickets, distinct int64
	l.b.DB.Raw("SELECT COUNT(*) FROM orders WHERE sale_id = ? AND order_ticket IS NULL", s.ID).Scan(&noTicket)
	l.b.DB.Raw("SELECT COUNT(order_ticket), COUNT(DISTINCT order_ticket) FROM orders WHERE sale_id = ?", s.ID).Row().Scan(&tickets, &distinct)
	if noTicket != 0 || tickets != distinct {
		l.t.Fatalf("sale %d: %d orders without a ticket, %d tickets on orders but %d distinct", s.ID, noTicket, tickets, distinct)
	}
	inst, err := l.lockers.Get(s.Strategy, order.LockOptions(s))
	if err != nil {
		l.t.Fatal(err)
	}
	r, err := reconcile.Check(ctx, l.b.DB, inst.Reserver.(reconcile.Store), l.orders.LockKey(s.ID), s.ID)
	if err != nil {
		l.t.Fatal(err)
	}
	if r.Drift != 0 || r.StoreStock != r.DBStock || r.InFlight != 0 {
		l.t.Fatalf("sale %d: reconciliation %+v, want Redis's stock = the database's, nothing in flight", s.ID, r)
	}
	return v
}
