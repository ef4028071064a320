package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/reconcile"
	"github.com/seckill-lab/seckill/internal/reserved"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// reclaimSale is a redis-lua-stock sale of stock units in the database and
// in Redis, under its key in a keyspace of its own.
type reclaimSale struct {
	db       *gorm.DB
	st       *redisstock.LuaStock
	id       uint64
	key      string
	keyspace string
}

func newReclaimSale(t *testing.T, stock int64) reclaimSale {
	t.Helper()
	b := testenv.Backends(t, "reconcile")
	keyspace := fmt.Sprintf("reclaim-test-%d", time.Now().UnixNano())
	key := func(id uint64) string { return fmt.Sprintf("%s:sale:%d", keyspace, id) }
	sale := saletest.Make(t, saletest.Service(t, b, saletest.KeyFunc(key)), sale.Spec{Name: new("reclaim"),
		Strategy: new("redis-lua-stock"), Stock: &stock, PerUserLimit: new(int64(0))})
	return reclaimSale{db: b.DB, st: redisstock.NewLuaStock(b.Redis), id: sale.ID, key: key(sale.ID), keyspace: keyspace}
}

// takeAbandoned takes one unit as a synchronous order does, then ages it
// past reserved.Stale: the state a replica that died
// mid-persist leaves.
func (s reclaimSale) takeAbandoned(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	r, ok, err := s.st.Reserve(ctx, s.key, "buyer")
	if err != nil || !ok {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	old := r.AcceptedAt.Add(-reserved.Stale - time.Second).UnixMilli()
	rdb := testenv.Redis(t)
	if err := rdb.HSet(ctx, redisstock.KeysOf(s.key).InFlight, r.Ticket, fmt.Sprint("s:", old)).Err(); err != nil {
		t.Fatal(err)
	}
	return r.Ticket
}

// persist is the database half of a synchronous order of ticket, as the
// order service writes it, in tx.
func (s reclaimSale) persist(ctx context.Context, tx *gorm.DB, ticket string) error {
	if err := inventory.DecrementIfAvailable(ctx, tx, s.id); err != nil {
		return err
	}
	now := time.Now().UTC()
	o := inventory.Order{SaleID: s.id, UserID: "u-" + ticket[len(ticket)-6:], ReplicaID: "test", Status: inventory.StatusPaid,
		OrderTicket: &ticket, AcceptedAt: &now, CreatedAt: now}
	if err := inventory.InsertOrder(ctx, tx, &o); err != nil {
		return err
	}
	return inventory.CheckNotReclaimed(ctx, tx, ticket)
}

func (s reclaimSale) check(t *testing.T) inventory.Reconciliation {
	t.Helper()
	r, err := reconcile.Check(context.Background(), s.db, s.st, s.key, s.id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A unit whose replica died before its order was a row is stuck: the check
// counts it as drift (never healthy), and the reclaim gives it back once.
func TestReclaimGivesBackAnAbandonedUnit(t *testing.T) {
	s := newReclaimSale(t, 5)
	ctx := context.Background()
	ticket := s.takeAbandoned(t)
	if r := s.check(t); r.Stuck != 1 || r.Drift != 1 || r.StoreStock != 4 {
		t.Fatalf("before the reclaim: %+v, want stuck 1, drift 1, store stock 4", r)
	}
	keys, err := s.st.SalesInFlight(ctx, s.keyspace)
	if err != nil || len(keys) != 1 || keys[0] != s.key {
		t.Fatalf("sales in flight: %v %v, want [%s]", keys, err, s.key)
	}
	for range 2 { // the second finds nothing: a unit goes back once
		if _, err := reconcile.Reclaim(ctx, s.db, s.st, s.key, s.id); err != nil {
			t.Fatal(err)
		}
	}
	if r := s.check(t); r.Stuck != 0 || r.Drift != 0 || r.StoreStock != 5 || r.InFlight != 0 {
		t.Fatalf("after the reclaim: %+v, want the unit back (store stock 5), nothing in flight", r)
	}
	var reason string
	if err := s.db.Raw("SELECT reason FROM ticket_failures WHERE order_ticket = ?", ticket).Scan(&reason).Error; err != nil || reason != inventory.ReasonAbandoned {
		t.Fatalf("ticket failure: %q %v, want %q", reason, err, inventory.ReasonAbandoned)
	}
	if keys, err := s.st.SalesInFlight(ctx, s.keyspace); err != nil || len(keys) != 0 {
		t.Fatalf("sales in flight after the reclaim: %v %v, want none", keys, err)
	}
	// Its order can no longer be made: the late persist is refused.
	err = s.db.Transaction(func(tx *gorm.DB) error { return s.persist(ctx, tx, ticket) })
	if !errors.Is(err, inventory.ErrTicketReclaimed) {
		t.Fatalf("persist after the reclaim: %v, want ErrTicketReclaimed", err)
	}
}

// The replica died after its order committed and before it settled the
// unit: the reclaim keeps the unit sold.
func TestReclaimKeepsAUnitWhoseOrderCommitted(t *testing.T) {
	s := newReclaimSale(t, 5)
	ctx := context.Background()
	ticket := s.takeAbandoned(t)
	if err := s.db.Transaction(func(tx *gorm.DB) error { return s.persist(ctx, tx, ticket) }); err != nil {
		t.Fatal(err)
	}
	if r := s.check(t); r.Stuck != 0 || r.Drift != 0 {
		t.Fatalf("an order that committed is not stuck: %+v", r)
	}
	if _, err := reconcile.Reclaim(ctx, s.db, s.st, s.key, s.id); err != nil {
		t.Fatal(err)
	}
	if r := s.check(t); r.StoreStock != 4 || r.DBStock != 4 || r.InFlight != 0 || r.Drift != 0 {
		t.Fatalf("after the reclaim: %+v, want the unit sold on both sides, nothing in flight", r)
	}
}

// The unit's replica is alive but slow: its transaction took its snapshot
// (a read) before the reclaim committed, and writes after. Its locking
// check still sees the reclaim: no order, and the unit back once.
func TestReclaimWinsOverASlowPersistWithAnOldSnapshot(t *testing.T) {
	s := newReclaimSale(t, 5)
	ctx := context.Background()
	ticket := s.takeAbandoned(t)
	tx := s.db.Begin()
	defer tx.Rollback()
	if _, err := inventory.ReadStock(ctx, tx, s.id); err != nil { // the snapshot
		t.Fatal(err)
	}
	if _, err := reconcile.Reclaim(ctx, s.db, s.st, s.key, s.id); err != nil {
		t.Fatal(err)
	}
	if err := s.persist(ctx, tx, ticket); !errors.Is(err, inventory.ErrTicketReclaimed) {
		t.Fatalf("persist after the reclaim committed: %v, want ErrTicketReclaimed", err)
	}
	tx.Rollback()
	if err := s.st.Unreserve(ctx, s.key, lockstrategy.Reservation{Ticket: ticket}); err != nil { // the persist's give-back
		t.Fatal(err)
	}
	if r := s.check(t); r.StoreStock != 5 || r.DBStock != 5 || r.Drift != 0 {
		t.Fatalf("after both: %+v, want the unit back once (5 and 5)", r)
	}
}

// The slow persist holds the sale's row when the reclaim starts: the
// reclaim waits for it, then sees its order and keeps the unit sold.
func TestReclaimWaitsForAPersistHoldingTheRow(t *testing.T) {
	s := newReclaimSale(t, 5)
	ctx := context.Background()
	ticket := s.takeAbandoned(t)
	tx := s.db.Begin()
	defer tx.Rollback()
	if err := inventory.DecrementIfAvailable(ctx, tx, s.id); err != nil { // holds the row
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := reconcile.Reclaim(ctx, s.db, s.st, s.key, s.id)
		done <- err
	}()
	testenv.WaitFor(t, 60*time.Second, "the reclaim waiting for the sale's row", func() bool {
		var waits int64
		s.db.Raw("SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE 'SELECT id FROM sales WHERE id = % FOR UPDATE'").
			Scan(&waits)
		return waits > 0
	})
	now := time.Now().UTC()
	o := inventory.Order{SaleID: s.id, UserID: "slow", ReplicaID: "test", Status: inventory.StatusPaid,
		OrderTicket: &ticket, AcceptedAt: &now, CreatedAt: now}
	if err := inventory.InsertOrder(ctx, tx, &o); err != nil {
		t.Fatal(err)
	}
	if err := inventory.CheckNotReclaimed(ctx, tx, ticket); err != nil {
		t.Fatalf("the persist that holds the row: %v", err)
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if r := s.check(t); r.StoreStock != 4 || r.DBStock != 4 || r.InFlight != 0 || r.Drift != 0 {
		t.Fatalf("after both: %+v, want the unit sold once (4 and 4), nothing in flight", r)
	}
}

// A repair asked for (POST /api/sales/{id}/reconcile) reclaims a stuck unit
// once: it does not also move the stock by the drift the unit made.
func TestRepairReclaimsAStuckUnitOnce(t *testing.T) {
	s := newReclaimSale(t, 5)
	s.takeAbandoned(t)
	before, after, repaired, err := reconcile.Repair(context.Background(), s.db, s.st, s.key, s.id)
	if err != nil {
		t.Fatal(err)
	}
	if !repaired || after.Drift != 0 || after.StoreStock != 5 || after.DBStock != 5 || after.InFlight != 0 {
		t.Fatalf("repair: repaired %v, before %+v, after %+v; want repaired, the unit back once (5 and 5)", repaired, before, after)
	}
}
