package order_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// observations keeps what the order service observed, for a test to read.
type observations struct {
	mu  sync.Mutex
	all []order.Observation
}

func (o *observations) ObservePlace(ob order.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.all = append(o.all, ob)
}

func (o *observations) last() order.Observation {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.all[len(o.all)-1]
}

// A db-optimistic order that loses its CAS round retries in the same
// transaction: the round lost costs one read and one conditional update,
// and is reported (Observation.Retries).
//
// Interleaving: a rival transaction moves the sale's version and holds the
// row uncommitted (another buyer's winning CAS); A reads the committed
// version and its CAS UPDATE waits on the rival's row lock; the rival
// commits; A's UPDATE matches no row (the version moved): a round lost; A
// reads again and wins. Before the retry moved inside the transaction,
// A's REPEATABLE READ snapshot could only show the old version again, so A
// began a new transaction after a backoff: two transactions here.
func TestCASRoundLostIsOneReadAndOneUpdate(t *testing.T) {
	obs := &observations{}
	store, lockers, svc := newCountingService(t, obs)
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("cas round"), Strategy: new("db-optimistic"),
		Stock: new(int64(5)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(0))})
	if _, err := svc.Place(ctx, sale.ID, "first"); err != nil { // the sale's options cached
		t.Fatal(err)
	}
	sqlDB, err := testenv.DB(t, "order").DB()
	if err != nil {
		t.Fatal(err)
	}
	rival, err := sqlDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rival.Rollback() })
	if _, err := rival.ExecContext(ctx, "UPDATE sales SET stock = stock - 1, version = version + 1 WHERE id = ?", sale.ID); err != nil {
		t.Fatal(err)
	}
	var rivalTrx string
	if err := rival.QueryRowContext(ctx, "SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()").Scan(&rivalTrx); err != nil {
		t.Fatal(err)
	}
	var c roundTrips
	placed := make(chan error, 1)
	go func() {
		_, err := svc.Place(countRoundTrips(ctx, &c), sale.ID, "a")
		placed <- err
	}()
	db := testenv.DB(t, "order")
	testenv.WaitFor(t, 60*time.Second, "A's CAS waiting behind the rival's row lock", func() bool {
		var n int64
		if err := db.Raw("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS WHERE blocking_trx_id = ?", rivalTrx).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	if err := rival.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-placed:
		if err != nil {
			t.Fatalf("A after the rival's commit: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("A never answered after the rival committed")
	}
	if got := obs.last().Retries; got != 1 {
		t.Errorf("A lost %d rounds, want 1 reported", got)
	}
	if n := c.transactions.Load(); n != 1 {
		t.Errorf("A ran %d transactions, want its retry inside the one", n)
	}
	// Without a limit: the isolation's SET, the read and the CAS, the
	// read and the CAS again, the INSERT.
	if n, want := c.statements.Load(), maxStatements[0]["db-optimistic"]+2; n != want {
		t.Errorf("A sent %d statements, want %d: a round lost is one read and one conditional update", n, want)
	}
	v := settledView(t, store, svc, sale.ID)
	if v.Sold != 2 || v.Stock != 2 || v.LostUpdates != 1 {
		// the rival took a unit without an order: one lost update, exactly
		t.Fatalf("after the round: sold %d stock %d lost updates %d, want 2, 2 and the rival's 1", v.Sold, v.Stock, v.LostUpdates)
	}
}
