package inventory_test

import (
	"testing"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// TestLedgerDecidesInArrivalOrder: the ledger's decisions alone, no
// database: the checks in their order (key, limit, stock), each buyer let
// through counted, a refused one not.
func TestLedgerDecidesInArrivalOrder(t *testing.T) {
	l := inventory.NewLedger(3, 2)
	steps := []struct {
		b    inventory.Buyer
		want error
	}{
		{inventory.Buyer{UserID: "ann", Key: "k1"}, nil},
		{inventory.Buyer{UserID: "ann", Key: "k1"}, inventory.ErrKeyUsed}, // the same key again
		{inventory.Buyer{UserID: "bob", Key: "k1"}, nil},                  // a key is per user
		{inventory.Buyer{UserID: "ann", Key: "k2"}, nil},                  // ann's second: the limit is 2
		{inventory.Buyer{UserID: "ann", Key: "k3"}, inventory.ErrLimitReached},
		{inventory.Buyer{UserID: "ann", Key: "k1"}, inventory.ErrKeyUsed}, // the key before the limit
		{inventory.Buyer{UserID: "cy"}, inventory.ErrSoldOut},             // 3 units, 3 taken
		{inventory.Buyer{UserID: "ann"}, inventory.ErrLimitReached},       // the limit before the stock
	}
	for i, s := range steps {
		if got := l.Take(s.b); got != s.want {
			t.Fatalf("step %d (%+v): %v, want %v", i, s.b, got, s.want)
		}
	}
}

// TestLedgerCountsOnlyWhomItLetsThrough: a buyer refused for the stock is
// not counted against its limit, nor is its key used.
func TestLedgerCountsOnlyWhomItLetsThrough(t *testing.T) {
	l := inventory.NewLedger(0, 1)
	b := inventory.Buyer{UserID: "ann", Key: "k"}
	for range 2 {
		if err := l.Take(b); err != inventory.ErrSoldOut {
			t.Fatalf("no stock: %v, want ErrSoldOut (not a used key nor the limit)", err)
		}
	}
}

// TestLedgerGiveBack: a unit given back is the ledger's again, with the
// buyer's count and key.
func TestLedgerGiveBack(t *testing.T) {
	l := inventory.NewLedger(1, 1)
	b := inventory.Buyer{UserID: "ann", Key: "k"}
	if err := l.Take(b); err != nil {
		t.Fatal(err)
	}
	l.GiveBack(b)
	if err := l.Take(b); err != nil {
		t.Fatalf("after GiveBack: %v", err)
	}
}

// TestLedgerSettlesTickets: a ticket that failed keeps its reason, one
// seen once in the batch is one order (the second sight is confirmed),
// and Failed reads without noting.
func TestLedgerSettlesTickets(t *testing.T) {
	l := inventory.NewLedger(5, 0)
	l.NoteFailed("t-failed", "sold_out")
	if c, f := l.Settle("t-failed"); c || f != "sold_out" {
		t.Fatalf("a failed ticket: confirmed %v, failed %q", c, f)
	}
	if l.Failed("t-new") != "" {
		t.Fatal("a new ticket read as failed")
	}
	if c, f := l.Settle("t-new"); c || f != "" {
		t.Fatalf("first sight: confirmed %v, failed %q", c, f)
	}
	if c, _ := l.Settle("t-new"); !c {
		t.Fatal("a ticket twice in one batch must be one order: the second sight is confirmed")
	}
}
