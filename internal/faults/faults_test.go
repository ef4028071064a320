package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestSlowDB: while the fault holds the sale row, a stock write from another
// connection waits at least (most of) the hold; an unknown sale is
// ErrSaleNotFound; a disabled service refuses.
func TestSlowDB(t *testing.T) {
	db := testenv.DB(t, "faults")
	store := inventory.NewStore(db)
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db}, nil), sale.Spec{Name: new("slow"),
		Strategy: new("none"), Stock: new(int64(5))})
	f := faults.New(faults.Config{Enabled: true}, store)
	t.Cleanup(f.Wait)

	const hold = 800 * time.Millisecond
	reqCtx, cancel := context.WithCancel(ctx)
	if err := f.SlowDB(reqCtx, sale.ID, hold); err != nil {
		t.Fatal(err)
	}
	cancel() // the request that asked for the fault ends at once; the hold must not
	start := time.Now()
	if err := db.WithContext(ctx).Exec("UPDATE sales SET stock = stock WHERE id = ?", sale.ID).Error; err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < hold*8/10 {
		t.Errorf("the write waited %v; the row was held for %v", waited, hold)
	}

	if err := f.SlowDB(ctx, 1<<60, hold); !errors.Is(err, inventory.ErrSaleNotFound) {
		t.Errorf("unknown sale: %v, want ErrSaleNotFound", err)
	}
	if err := f.SlowDB(ctx, sale.ID, faults.MaxDuration+time.Millisecond); err == nil {
		t.Error("a hold beyond MaxDuration was accepted")
	}
	off := faults.New(faults.Config{}, store)
	if err := off.SlowDB(ctx, sale.ID, hold); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled: %v, want ErrDisabled", err)
	}
	if err := off.PauseHolder(hold); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled pause: %v, want ErrDisabled", err)
	}
	if _, err := off.ExpireZKSession(ctx); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled expire: %v, want ErrDisabled", err)
	}
}

// TestExpireZKSession: a zookeeper lease held by this replica is lost once
// the fault expires the session, and another client (its own session) then
// gets the lock: the dead holder's lock is released by ZooKeeper itself.
func TestExpireZKSession(t *testing.T) {
	b := lockstrategy.Backends{ZKServers: testenv.ZKServers(t)}
	mine := lockstrategy.NewInstances(b)
	t.Cleanup(func() { mine.Close() })
	other := lockstrategy.NewInstances(b)
	t.Cleanup(func() { other.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	l, err := mine.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := "faults-expire-" + time.Now().Format("150405.000000000")
	lease, err := l.Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	f := faults.New(faults.Config{Enabled: true, ZooKeeper: zooKeeperOf(mine)}, nil)
	id, err := f.ExpireZKSession(ctx)
	if err != nil || id == 0 {
		t.Fatalf("expire: id %d, %v", id, err)
	}
	select {
	case <-lease.Lost():
	case <-time.After(15 * time.Second): // generous liveness bound
		t.Fatal("the lease was not lost after its session expired")
	}
	o, err := other.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithTimeout(ctx, 15*time.Second)
	defer ocancel()
	lease2, err := o.Lock(octx, key)
	if err != nil {
		t.Fatalf("another client could not take the dead session's lock: %v", err)
	}
	_ = lease2.Unlock(ctx)
	_ = lease.Unlock(ctx) // lost: must not free lease2's lock (and may say so)
}
