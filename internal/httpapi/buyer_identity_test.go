package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/buyer"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy/redisstock"
	"github.com/seckill-lab/seckill/internal/orderqueue"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// userBody is an order's body for user id (JSON-escaped as a client would).
func userBody(id string) string {
	b, _ := json.Marshal(map[string]string{"user_id": id})
	return string(b)
}

// drainedQueue waits until none of the sale's tickets is in flight.
func (e *env) drainedQueue(t *testing.T, saleID uint64) {
	t.Helper()
	testenv.WaitFor(t, guardWait, "the sale's queue to drain", func() bool {
		f, err := e.srv.orders.Queue().Figures(context.Background(), e.srv.orders.LockKey(saleID))
		return err == nil && f.InFlight == 0
	})
}

// ordersPerDatabaseBuyer is the most orders any one buyer has, as the
// database groups buyers (its collation decides who is one).
func (e *env) ordersPerDatabaseBuyer(t *testing.T, saleID uint64) int64 {
	t.Helper()
	var most int64
	if err := e.db.Raw("SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM orders WHERE sale_id = ? GROUP BY user_id) g",
		saleID).Scan(&most).Error; err != nil {
		t.Fatal(err)
	}
	return most
}

// Two requests, same Idempotency-Key, "alice" and "alice ": the second is
// refused naming user_id, and alice's ticket is confirmed with nothing
// left in flight. Before, both got 202 and the second's INSERT failed on
// the key for ever, its unit in flight, the sale "healthy".
func TestPaddedBuyerCannotJamTheQueue(t *testing.T) {
	e := newEnv(t, withQueue)
	v := e.createSale(t, `{"strategy":"redis-lua-stock","stock":5,"order_mode":"async"}`)
	if rec := e.order(v.ID, userBody("alice"), "Idempotency-Key: k-1"); rec.Code != http.StatusAccepted {
		t.Fatalf("alice: %d %s", rec.Code, rec.Body)
	}
	wantError(t, e.order(v.ID, userBody("alice "), "Idempotency-Key: k-1"), 400, "invalid_field", "user_id")
	e.drainedQueue(t, v.ID)
	if n := e.countOrders(t, v.ID); n != 1 {
		t.Fatalf("%d orders, want alice's one", n)
	}
}

// "bob", "bob ", "bob  " with a limit of 1, on every road: one order, the
// others refused. Before, redis-lua-stock (sync and async) and combining
// sold to all three and the sale read broken.
func TestPaddedBuyersShareTheLimitOnEveryRoad(t *testing.T) {
	e := newEnv(t, withQueue)
	for _, road := range identityRoads {
		t.Run(road.name, func(t *testing.T) {
			v := e.createSale(t, road.spec(5))
			ok := 0
			for _, id := range []string{"bob", "bob ", "bob  "} {
				rec := e.order(v.ID, userBody(id))
				switch {
				case rec.Code == http.StatusCreated || rec.Code == http.StatusAccepted:
					ok++
				case id != "bob":
					wantError(t, rec, 400, "invalid_field", "user_id")
				default:
					t.Fatalf("bob: %d %s", rec.Code, rec.Body)
				}
			}
			if road.async {
				e.drainedQueue(t, v.ID)
			}
			if most := e.ordersPerDatabaseBuyer(t, v.ID); ok != 1 || most != 1 {
				t.Fatalf("%d orders accepted, at most %d per buyer in the database: want 1 and 1", ok, most)
			}
		})
	}
}

// A combining batch with a bad buyer: "alice" and "alice " with one key,
// sent with honest buyers while a batch gathers. Every honest buyer gets
// an order. Before, the batch's INSERT failed on the key and every buyer in
// the batch got 409 in_progress.
func TestBadBuyerDoesNotRefuseACombinedBatch(t *testing.T) {
	e := newEnv(t, withQueue)
	v := e.createSale(t, `{"strategy":"db-pessimistic","stock":50,"combine":true,"combine_max_wait_us":50000}`)
	type sent struct {
		id   string
		code int
		body string
	}
	var wg sync.WaitGroup
	results := make(chan sent, 14)
	send := func(id string, header ...string) {
		defer wg.Done()
		rec := e.order(v.ID, userBody(id), header...)
		results <- sent{id, rec.Code, rec.Body.String()}
	}
	for i := range 12 {
		wg.Add(1)
		go send(fmt.Sprintf("honest-%d", i), fmt.Sprintf("Idempotency-Key: h-%d", i))
	}
	wg.Add(2)
	go send("alice", "Idempotency-Key: k-a")
	go send("alice ", "Idempotency-Key: k-a")
	wg.Wait()
	close(results)
	for r := range results {
		switch r.id {
		case "alice ":
			if r.code != http.StatusBadRequest {
				t.Errorf("%q: %d %s, want 400", r.id, r.code, r.body)
			}
		default:
			if r.code != http.StatusCreated {
				t.Errorf("%q: %d %s, want 201", r.id, r.code, r.body)
			}
		}
	}
	if most := e.ordersPerDatabaseBuyer(t, v.ID); most != 1 {
		t.Errorf("a buyer has %d orders", most)
	}
}

// A queued ticket pending past reserved.QueuedStale (here: one whose
// stream entry is gone, queued in 1970 by Redis's clock) is stuck: the
// sale is not healthy and its reconciliation counts it, and a repair
// settles it: failed as stuck, its unit back, the sale healthy again.
func TestStuckQueuedTicketIsSeenAndRepaired(t *testing.T) {
	e := newEnv(t, withQueue)
	v := e.createSale(t, `{"strategy":"redis-lua-stock","stock":5,"order_mode":"async"}`)
	if rec := e.order(v.ID, userBody("alice")); rec.Code != http.StatusAccepted {
		t.Fatalf("alice: %d %s", rec.Code, rec.Body)
	}
	e.drainedQueue(t, v.ID)
	ctx := context.Background()
	rdb := testenv.Redis(t)
	keys := redisstock.KeysOf(e.srv.orders.LockKey(v.ID))
	ticket := orderqueue.NewTicket(v.ID)
	if err := rdb.HSet(ctx, keys.InFlight, ticket, "1000-0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Decr(ctx, keys.Stock).Err(); err != nil {
		t.Fatal(err)
	}
	var view inventory.SaleView
	mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &view)
	if view.Healthy == nil || *view.Healthy || view.Reconcile == nil || view.Reconcile.Stuck != 1 {
		t.Fatalf("with a stuck ticket: healthy %v, reconcile %+v; want unhealthy, 1 stuck", view.Healthy, view.Reconcile)
	}
	var rep struct {
		Repaired bool                     `json:"repaired"`
		After    inventory.Reconciliation `json:"after"`
	}
	rec := e.post(fmt.Sprintf("/api/sales/%d/reconcile", v.ID), `{"repair":true}`)
	mustJSON(t, rec, &rep)
	if !rep.Repaired || rep.After.Stuck != 0 || rep.After.Drift != 0 || rep.After.InFlight != 0 || rep.After.StoreStock != 4 {
		t.Fatalf("repair: %d %s, want repaired, nothing stuck, 4 units in Redis", rec.Code, rec.Body)
	}
	var st orderqueue.TicketState
	mustJSON(t, e.get("/api/orders/"+ticket), &st)
	if st.State != orderqueue.StateFailed || st.Reason != inventory.ReasonStuck {
		t.Fatalf("the stuck ticket after the repair: %+v, want failed as %s", st, inventory.ReasonStuck)
	}
	view = inventory.SaleView{}
	mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &view)
	if view.Healthy == nil || !*view.Healthy {
		t.Fatalf("after the repair: healthy %v, reconcile %+v", view.Healthy, view.Reconcile)
	}
}

// identityRoad is a sale that sends its orders down one road.
type identityRoad struct {
	name  string
	body  string // the sale's spec without its stock
	async bool
}

func (r identityRoad) spec(stock int) string {
	return fmt.Sprintf(`{%s,"stock":%d,"per_user_limit":1}`, r.body, stock)
}

var identityRoads = []identityRoad{
	{name: "locked", body: `"strategy":"db-pessimistic"`},
	{name: "combined", body: `"strategy":"redis","combine":true`},
	{name: "lock-free", body: `"strategy":"db-conditional"`},
	{name: "reserved", body: `"strategy":"redis-lua-stock"`},
	{name: "queued", body: `"strategy":"redis-lua-stock","order_mode":"async"`, async: true},
}

// The property, on every road: ids generated to differ by what the
// database may fold (buyer.Lookalikes) are sent with a limit of 1, half
// with the same Idempotency-Key as their original, half with none. Whatever each answer,
// the database must find no buyer with two orders, every answer is a 2xx
// or a 4xx (never a 5xx), and a queued sale drains.
func TestLookalikeBuyersAreOneBuyerOnEveryRoad(t *testing.T) {
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("SECKILL_BUYER_SEED"); v != "" {
		s, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (replay: SECKILL_BUYER_SEED=%d go test -run %s ./internal/httpapi/)", s, s, t.Name())
	e := newEnv(t, withQueue)
	for _, road := range identityRoads {
		t.Run(road.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(s, uint64(len(road.name))))
			v := e.createSale(t, road.spec(200))
			for i := range 6 {
				id := fmt.Sprintf("buyer-%d", i)
				key := fmt.Sprintf("Idempotency-Key: key-%d", i)
				for j, sendID := range append([]string{id}, buyer.Lookalikes(rng, id, 6)...) {
					var header []string
					if j%2 == 0 { // with the original's key: a retry; without: a second purchase
						header = append(header, key)
					}
					rec := e.order(v.ID, userBody(sendID), header...)
					if rec.Code >= 500 {
						t.Fatalf("seed %d: %q: %d %s", s, sendID, rec.Code, rec.Body)
					}
				}
			}
			if road.async {
				e.drainedQueue(t, v.ID)
			}
			if most := e.ordersPerDatabaseBuyer(t, v.ID); most > 1 {
				t.Fatalf("seed %d: a buyer (as the database groups them) has %d orders with a limit of 1", s, most)
			}
		})
	}
}
