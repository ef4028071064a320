package history_test

import (
	"context"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Load marks the orders the record has no answer for, once they are older
// than AnswerGrace and no unknown answer can stand for them: the rows a
// killed replica never wrote. Real MariaDB.
func TestLoadMarksOrdersWithNoAnswerAsLost(t *testing.T) {
	db := testenv.DB(t, "history_lost")
	ctx := context.Background()
	const sale = 4242
	for _, table := range []string{"orders", "order_history", "ticket_failures"} {
		if err := db.Exec("DELETE FROM "+table+" WHERE sale_id = ?", sale).Error; err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Minute)
	order := func(user string, at time.Time) uint64 {
		t.Helper()
		if err := db.Exec("INSERT INTO orders (sale_id, user_id, replica_id, created_at) VALUES (?, ?, 'r1', ?)",
			sale, user, at).Error; err != nil {
			t.Fatal(err)
		}
		var id uint64
		db.Raw("SELECT MAX(id) FROM orders WHERE sale_id = ?", sale).Scan(&id)
		return id
	}
	answered := order("u1", old)
	order("u2", old)        // no answer: lost
	order("u3", time.Now()) // too young to call lost: the batch may still come
	if err := db.Create(&[]history.Op{
		{SaleID: sale, ReplicaID: "r1", CallAt: old, ReturnAt: old, Outcome: history.OK, OrderID: &answered},
		{SaleID: sale, ReplicaID: "r1", CallAt: old, ReturnAt: old, Outcome: history.SoldOut},
	}).Error; err != nil {
		t.Fatal(err)
	}
	lost := func() int {
		ops, err := history.Load(ctx, db, sale)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, op := range ops {
			if op.Outcome == history.Lost {
				n++
			}
		}
		return n
	}
	if n := lost(); n != 1 {
		t.Fatalf("lost markers: got %d, want 1 (u2's order)", n)
	}
	if r := history.Check(mustLoad(t, db, sale), 3, time.Second); r.Verdict != history.VerdictUnknown {
		t.Fatalf("verdict: got %s (%s), want unknown", r.Verdict, r.Message.En)
	}
	// An unknown answer (a buyer gone, a queued order) may be that order.
	if err := db.Create(&history.Op{SaleID: sale, ReplicaID: "r2", CallAt: old, ReturnAt: old, Outcome: history.Unknown}).Error; err != nil {
		t.Fatal(err)
	}
	if n := lost(); n != 0 {
		t.Fatalf("lost markers with an unknown answer: got %d, want 0", n)
	}
	// A unit a dead replica held and the reconciliation gave back: a take
	// the record never saw.
	if err := db.Exec("INSERT INTO ticket_failures (order_ticket, sale_id, user_id, reason, failed_at) VALUES ('s:lost-test', ?, 'u9', 'abandoned', ?)",
		sale, old).Error; err != nil {
		t.Fatal(err)
	}
	if n := lost(); n != 1 {
		t.Fatalf("lost markers with an abandoned ticket: got %d, want 1", n)
	}
}

func mustLoad(t *testing.T, db *gorm.DB, sale uint64) []history.Op {
	t.Helper()
	ops, err := history.Load(context.Background(), db, sale)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}
