package order_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// A db-pessimistic lock is its transaction: if the buyer's request ctx could
// cancel a statement of the section, the driver would kill the connection,
// the server would roll back and release the row lock at once, and the next
// buyer would enter while the first was still inside its section (the
// section log's exit comes later): a violation, seen in CI under load when
// clients timed out. The section must hold its lock until it leaves, buyer
// gone or not.
//
// Interleaving: A holds the lock and its stock UPDATE waits behind a row
// lock held by another transaction (a slow batch job); A's buyer leaves
// (ctx cancelled); the job ends. A must not have let go before the job
// ended: its Place returns only after the job's row lock is gone.
func TestPessimisticSectionOutlivesItsBuyer(t *testing.T) {
	store, lockers, svc := newService(t, "leasetx")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("lease tx"), Strategy: new("db-pessimistic"),
		Stock: new(int64(5)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(1))})
	db := testenv.DB(t, "order")
	job := holdSaleRow(t, sale.ID)

	buyer, leave := context.WithCancel(ctx)
	placed := make(chan error, 1)
	go func() {
		_, err := svc.Place(buyer, sale.ID, "a")
		placed <- err
	}()
	// A is inside its section once a transaction waits on the job's row
	// lock: only A's stock write can (the read is not a locking one). Any
	// lock wait would not do: the server is shared with other packages'
	// tests, whose transactions wait on their own rows.
	var jobTrx string
	if err := job.QueryRowContext(ctx, "SELECT trx_id FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()").Scan(&jobTrx); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 60*time.Second, "A's stock write waiting behind the job", func() bool {
		var n int64
		if err := db.Raw("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS WHERE blocking_trx_id = ?", jobTrx).Scan(&n).Error; err != nil {
			t.Fatal(err)
		}
		return n > 0
	})
	leave()
	select {
	case err := <-placed:
		t.Fatalf("A left its section (%v) while the job still held the row: its lock went with the buyer's ctx", err)
	case <-time.After(2 * time.Second):
		// Not a timing assert on the shop: A's Place must not return at all
		// before the job ends; 2 s is only how long we look for a wrong early return.
	}
	if err := job.Rollback(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-placed:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("A after the job ended: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("A never left its section after the job ended")
	}
	v := settledView(t, store, svc, sale.ID)
	if v.Violations != 0 || v.Oversold != 0 || v.LostUpdates != 0 {
		t.Fatalf("after A's buyer left: %+v", v)
	}
}

// A stock write that waits on the sale's row longer than the server's lock
// wait timeout (MariaDB error 1205: a herd queued on one row of a loaded
// server, or a slow batch job holding it) is a lock not acquired in time,
// which the buyer may retry: a 503 lock_timeout, not a 500.
func TestRowLockWaitTimeoutIsALockTimeout(t *testing.T) {
	store, lockers, svc := newService(t, "rowwait")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("row wait"), Strategy: new("db-conditional"),
		Stock: new(int64(5)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(1))})
	// The job holds the row until Place gives up: the server's timeout
	// (innodb_lock_wait_timeout, 10 s in the lab's MariaDB) ends the wait.
	holdSaleRow(t, sale.ID)
	_, err := svc.Place(ctx, sale.ID, "a")
	if !errors.Is(err, order.ErrLockTimeout) {
		t.Fatalf("Place behind a row held past the lock wait timeout: %v, want ErrLockTimeout", err)
	}
}

// holdSaleRow locks the sale's row in a transaction of its own, as a slow
// batch job would, until the returned transaction ends (rolled back when
// the test ends at the latest).
func holdSaleRow(t *testing.T, saleID uint64) *sql.Tx {
	t.Helper()
	sqlDB, err := testenv.DB(t, "order").DB()
	if err != nil {
		t.Fatal(err)
	}
	job, err := sqlDB.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Rollback() })
	if _, err := job.ExecContext(context.Background(), "SELECT id FROM sales WHERE id = ? FOR UPDATE", saleID); err != nil {
		t.Fatal(err)
	}
	return job
}

// A reserved unit whose order cannot be persisted within its bound (the
// sale's row held by another transaction: a loaded database) goes back to
// the store, and the buyer hears a retryable persist_timeout, not a 500.
func TestReservedPersistTimeoutIsRetryable(t *testing.T) {
	store, lockers, svc := newService(t, "persist")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("persist timeout"), Strategy: new("redis-lua-stock"),
		Stock: new(int64(5)), TTLMS: new(int64(5000)), PerUserLimit: new(int64(1))})
	inst, err := lockers.Get(sale.Strategy, order.LockOptions(sale))
	if err != nil {
		t.Fatal(err)
	}
	job := holdSaleRow(t, sale.ID)
	_, err = svc.Place(ctx, sale.ID, "a")
	job.Rollback()
	if !errors.Is(err, order.ErrPersistTimeout) || order.OutcomeOf(err) != order.OutcomePersistTimeout {
		t.Fatalf("Place whose persist ran out of time: %v (outcome %s), want ErrPersistTimeout", err, order.OutcomeOf(err))
	}
	left, err := inst.Reserver.(interface {
		StockLeft(context.Context, string) (int64, error)
	}).StockLeft(ctx, svc.LockKey(sale.ID))
	if err != nil || left != 5 {
		t.Fatalf("the store has %d units (%v) after the unit went back, want 5", left, err)
	}
	if _, err := svc.Place(ctx, sale.ID, "a"); err != nil {
		t.Fatalf("the retry, the row free again: %v", err)
	}
}
