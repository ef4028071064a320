package orderqueue_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/orderqueue"
)

// A herd at 6x the stock on an async sale, two consumers side by side:
// exactly the stock is sold, every 202 ticket ends confirmed, the others
// were refused at once, and Redis's stock equals the database's.
func TestHerdSellsTheStockThroughTheQueue(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 40, inventory.OrderAsync, 0)
	l.consumer("c1", 2*time.Second)
	l.consumer("c2", 2*time.Second)
	tickets := l.herd(s.ID, 240, func(i int) string { return "u" + strconv.Itoa(i) })
	if len(tickets) != 40 {
		t.Fatalf("%d tickets for a stock of 40", len(tickets))
	}
	l.drained(s.ID)
	if n := l.states(tickets); n[orderqueue.StateConfirmed] != 40 {
		t.Fatalf("ticket states %v, want 40 confirmed", n)
	}
	if v := l.checkTruth(s); v.Sold != 40 || v.Stock != 0 {
		t.Fatalf("sold %d, stock %d; want 40 and 0", v.Sold, v.Stock)
	}
}

// The buyer's limit is checked in Redis at once (409, no ticket), and an
// Idempotency-Key's retry gets the same ticket, even after the order is
// made; a retry never makes a second order.
func TestLimitAndIdempotencyAtTheQueue(t *testing.T) {
	l := newLab(t, nil)
	s := l.newSale("redis-lua-stock", 10, inventory.OrderAsync, 0)
	ctx := context.Background()
	first, layer, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "ann", IdempotencyKey: "k1"})
	if err != nil || layer != order.LayerQueue || first.OrderTicket == nil {
		t.Fatalf("first order: %+v %s %v", first, layer, err)
	}
	again, layer, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "ann", IdempotencyKey: "k1"})
	if err != nil || layer != order.LayerIdempotency || *again.OrderTicket != *first.OrderTicket {
		t.Fatalf("retry: %+v %s %v, want the first ticket %s replayed", again, layer, err, *first.OrderTicket)
	}
	if _, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "ann"}); err != order.ErrLimitReached {
		t.Fatalf("second order without the key: %v, want ErrLimitReached", err)
	}
	l.consumer("c1", 2*time.Second)
	l.drained(s.ID)
	after, _, err := l.orders.Buy(ctx, order.Purchase{SaleID: s.ID, UserID: "ann", IdempotencyKey: "k1"})
	if err != nil || *after.OrderTicket != *first.OrderTicket {
		t.Fatalf("retry after the order was made: %+v %v", after, err)
	}
	if v := l.checkTruth(s); v.Sold != 1 {
		t.Fatalf("sold %d, want 1", v.Sold)
	}
}

// A consumer killed mid-batch, before its commit or after it and before its
// ack, leaves its entries pending; another consumer reclaims them
// (XAUTOCLAIM) and makes every order exactly once.
func TestKilledConsumerIsReclaimed(t *testing.T) {
	for _, point := range faultpoint.ConsumerPoints() {
		t.Run(string(point), func(t *testing.T) {
			l := newLab(t, nil)
			s := l.newSale("redis-lua-stock", 30, inventory.OrderAsync, 0)
			tickets := l.herd(s.ID, 30, func(i int) string { return string(point) + strconv.Itoa(i) })
			killed := make(chan struct{})
			// Its goroutine ends where it stands: the open transaction
			// rolls back (as a dead process's connection does), nothing is
			// acknowledged.
			pts := &faultpoint.Points{KillProcess: func() { close(killed); runtime.Goexit() }}
			pts.ArmConsumerKill(point)
			l.consumerWith("victim-"+string(point), 300*time.Millisecond, pts)
			select {
			case <-killed:
			case <-time.After(30 * time.Second):
				t.Fatal("the armed consumer never reached its kill point")
			}
			l.consumer("heir-"+string(point), 300*time.Millisecond)
			l.drained(s.ID)
			if n := l.states(tickets); n[orderqueue.StateConfirmed] != 30 {
				t.Fatalf("ticket states %v, want 30 confirmed", n)
			}
			if v := l.checkTruth(s); v.Sold != 30 {
				t.Fatalf("sold %d, want 30", v.Sold)
			}
		})
	}
}
