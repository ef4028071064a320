package contentionlessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// casHerd is optimistic-vs-pessimistic's herd: casHerd buyers at once
// for casStock units, casWorkMS of work.
const casHerd, casStock, casWorkMS = 64, 50, 2

// casSide is what one sale of optimistic-vs-pessimistic observed.
type casSide struct {
	strategy string
	sent     int            // orders sent (casHerd)
	kinds    map[string]int // their answers
	took     time.Duration
	// retries are the CAS rounds this sale's orders lost, from its live
	// figures (GET /api/sales/{id}/live, merged over the replicas); counted
	// is how many of its orders those figures had seen when read.
	retries, counted int64
	view             shopapi.SaleView
}

func (c casSide) String() string {
	return fmt.Sprintf("%s: %d ordered in %d ms (%.0f orders/s), %d CAS rounds lost by this sale's orders, %d conflict answers, "+
		"%d timed out; %s", c.strategy, c.kinds[shopapi.KindOrder], c.took.Milliseconds(),
		float64(c.kinds[shopapi.KindOrder])/max(c.took.Seconds(), 1e-3), c.retries, c.kinds["conflict"], c.kinds[shopapi.KindTimeout], lessons.Describe(c.view))
}

// casVerdict is optimistic-vs-pessimistic's verdict, and why not: each
// sale held (nothing broken, every 201 has its order, something sold) and
// its live figures counted every order it was sent; the optimistic sale's
// orders lost CAS rounds (retries, or 409 conflict for a buyer that lost
// them all), the pessimistic sale's none. Not "all 50 sold": on a loaded
// machine 64-way CAS contention can keep buyers retrying past the client's
// timeout, which is the lesson's point, not a break.
func casVerdict(opt, pess casSide) (bool, string) {
	for _, c := range []casSide{opt, pess} {
		v := c.view
		switch {
		case v.Oversold != 0 || v.LostUpdates != 0 || v.Violations != 0:
			return false, fmt.Sprintf("%s broke: oversold %d lost_updates %d violations %d", c.strategy, v.Oversold, v.LostUpdates, v.Violations)
		case v.Sold == 0 || v.Sold < int64(c.kinds[shopapi.KindOrder]):
			return false, fmt.Sprintf("%s sold %d for %d 201s", c.strategy, v.Sold, c.kinds[shopapi.KindOrder])
		case c.counted < int64(c.sent):
			return false, fmt.Sprintf("%s: the sale's live figures counted %d of its %d orders", c.strategy, c.counted, c.sent)
		}
	}
	if opt.retries+int64(opt.kinds["conflict"]) == 0 {
		return false, "db-optimistic lost no CAS round: no contention met"
	}
	if n := pess.retries + int64(pess.kinds["conflict"]); n != 0 {
		return false, fmt.Sprintf("db-pessimistic lost %d CAS rounds (retries and conflicts): it queued on nothing", n)
	}
	return true, ""
}

// saleRetries reads sale id's live figures (published by each replica
// every second) until they count requests orders, 30 s at most, and
// returns the CAS rounds its orders lost and how many orders were counted.
func (sc *scenarioRun) saleRetries(ctx context.Context, id uint64, requests int) (retries, counted int64, err error) {
	u := sc.Targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/live"
	for deadline := time.Now().Add(30 * time.Second); ; {
		var l struct {
			Requests int64 `json:"requests"`
			Retries  int64 `json:"retries"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, u, nil, http.StatusOK, &l); err != nil {
			return 0, 0, err
		}
		if l.Requests >= int64(requests) || time.Now().After(deadline) {
			return l.Retries, l.Requests, nil
		}
		if err := load.Sleep(ctx, 250*time.Millisecond); err != nil {
			return 0, 0, err
		}
	}
}

// optimisticVsPessimistic: stock 50, 64 buyers at once, 2 ms of work, on
// db-optimistic then db-pessimistic. Both hold; the optimistic one pays in
// lost CAS rounds (each version has one winner, the rest retry from the
// read). With 50 units a buyer cannot lose its 64 allowed rounds (at most
// 50 versions exist), so 409 conflict answers are rare here: the retries
// are the sale's own figure (its orders' lost rounds, in its live
// figures), not the replicas' counter, which other sales share.
func optimisticVsPessimistic(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var sides []casSide
	for _, strategy := range []string{"db-optimistic", "db-pessimistic"} {
		c := casSide{strategy: strategy, sent: casHerd}
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario optimistic-vs-pessimistic",
			Strategy: strategy, Stock: casStock, WorkMS: casWorkMS})
		if err != nil {
			return "", false, err
		}
		c.kinds, c.took = sc.Burst(ctx, v.ID, casHerd, "o")
		if c.view, err = sc.Quiescent(ctx, v.ID); err != nil {
			return "", false, err
		}
		if c.retries, c.counted, err = sc.saleRetries(ctx, v.ID, casHerd); err != nil {
			return "", false, err
		}
		sides = append(sides, c)
	}
	ok, why := casVerdict(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// The sale of cache-db-drift: driftStock units, driftBefore sold before
// the restart.
const driftStock, driftBefore = 40, 10

// driftRun is what cache-db-drift observed.
type driftRun struct {
	// afterRestart is the sale's store_stock read right after the restart,
	// before any order (-1: the Redis stock is gone); nil if never read.
	afterRestart *int64
	// kinds are the answers after the restart, every stock_reloading
	// refusal counted before its retry.
	kinds map[string]int
	view  shopapi.SaleView
}

// holds is the verdict, and why not: the restart lost the Redis stock and
// the orders after it met the rebuild (at least one 503 stock_reloading,
// no answer but order, stock_reloading and the one final sold_out), then
// every unit sold once, and both stocks end at 0.
func (d driftRun) holds() (bool, string) {
	switch {
	case d.afterRestart == nil:
		return false, "the Redis stock was not read after the restart"
	case *d.afterRestart != -1:
		return false, fmt.Sprintf("Redis kept the stock across the restart (store_stock %d): nothing was lost", *d.afterRestart)
	case d.kinds["stock_reloading"] < 1:
		return false, "no order was answered 503 stock_reloading: none met the rebuild"
	}
	for k, n := range d.kinds {
		if k != shopapi.KindOrder && k != shopapi.KindSoldOut && k != "stock_reloading" {
			return false, fmt.Sprintf("%d answered %s after the restart", n, k)
		}
	}
	v := d.view
	switch {
	case d.kinds[shopapi.KindOrder] != driftStock-driftBefore:
		return false, fmt.Sprintf("%d orders after the restart, want %d", d.kinds[shopapi.KindOrder], driftStock-driftBefore)
	case d.kinds[shopapi.KindSoldOut] != 1:
		return false, fmt.Sprintf("%d sold_out answers, want the one that ended the sale", d.kinds[shopapi.KindSoldOut])
	case v.Oversold != 0:
		return false, fmt.Sprintf("oversold %d", v.Oversold)
	case v.Sold != driftStock || v.Stock != 0:
		return false, fmt.Sprintf("sold %d stock %d, want every unit sold", v.Sold, v.Stock)
	case v.StoreStock == nil || *v.StoreStock != 0:
		return false, "the Redis stock does not end at 0"
	}
	return true, ""
}

func (d driftRun) String() string {
	lost := "not read"
	if d.afterRestart != nil {
		lost = fmt.Sprint(*d.afterRestart)
		if *d.afterRestart == -1 {
			lost = "-1 (gone)"
		}
	}
	end := "?"
	if d.view.StoreStock != nil {
		end = fmt.Sprint(*d.view.StoreStock)
	}
	return fmt.Sprintf("store_stock right after the restart %s; after it: %s; redis stock %s, %s",
		lost, lessons.KindList(d.kinds), end, lessons.Describe(d.view))
}

// cacheDBDrift: a redis-lua-stock sale of 40 units sells 10,
// then its Redis restarts without persistence (restart_redis) and the stock
// in Redis is gone: the sale, read before any other order, says store_stock
// -1. Buyers keep coming, one at a time, each retrying a retryable refusal
// for up to 30 s. The replicas rebuild the stock from the database: a few
// 503 stock_reloading, then the rest sells; nothing is oversold and the
// Redis stock (store_stock) ends equal to the database's.
func cacheDBDrift(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario cache-db-drift", Strategy: "redis-lua-stock", Stock: driftStock})
	if err != nil {
		return "", false, err
	}
	buy := func(user string, i int, kinds map[string]int) string {
		target := sc.Targets[i%len(sc.Targets)]
		deadline := time.Now().Add(30 * time.Second)
		for {
			k := sc.C.Order(ctx, shopapi.OrdersURL(target, v.ID), user)
			if k != "stock_reloading" || time.Now().After(deadline) || ctx.Err() != nil {
				return k
			}
			kinds[k]++
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := range driftBefore {
		if k := buy(fmt.Sprintf("b%d", i), i, map[string]int{}); k != shopapi.KindOrder {
			return "", false, fmt.Errorf("order %d before the restart: %s", i, k)
		}
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.RestartRedis, "node": "redis"}); err != nil {
		return "", false, err
	}
	d := driftRun{kinds: map[string]int{}}
	if d.afterRestart, err = sc.storeStockNow(ctx, t1, v.ID); err != nil {
		return "", false, err
	}
	for i := 0; i < 2*driftStock; i++ {
		k := buy(fmt.Sprintf("a%d", i), i, d.kinds)
		d.kinds[k]++
		if k != shopapi.KindOrder {
			break // sold out, or a failure the verdict shows
		}
	}
	if d.view, err = sc.Settled(ctx, v.ID); err != nil {
		return "", false, err
	}
	ok, why := d.holds()
	out := d.String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// storeStockNow reads sale id's store_stock through target until the view
// has one (a replica whose pool is still reconnecting to a restarted Redis
// leaves it out), for 10 s at most; nil if it never did.
func (sc *scenarioRun) storeStockNow(ctx context.Context, target string, id uint64) (*int64, error) {
	for deadline := time.Now().Add(10 * time.Second); ; {
		v, _, err := sc.C.Sale(ctx, target, id)
		if err != nil {
			return nil, err
		}
		if v.StoreStock != nil || time.Now().After(deadline) {
			return v.StoreStock, nil
		}
		if err := load.Sleep(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
}
