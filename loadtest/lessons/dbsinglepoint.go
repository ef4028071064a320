package lessons

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The database outage of db-lock-single-point: every replica is cut off
// the database for dbCutFor while buyer A, on the first, is stalled inside
// its section for dbCutHold (it wakes during the outage); db-lock-table's
// lock rows live dbLockRowTTL, longer than the outage, so the one A could
// not delete outlives it.
const (
	dbCutFor     = 2500 * time.Millisecond
	dbCutHold    = 1200 * time.Millisecond
	dbLockRowTTL = 5 * time.Second
)

// dbLockSinglePoint: the database as a single point of failure. For the two
// locks kept in the database (db-lock-table, db-pessimistic) and, to
// compare, redis (a lock elsewhere, but the stock of record is in the
// database all the same): every replica is cut off the database while A is
// inside its section. Every order during the outage fails cleanly (503
// db_unavailable), A's too; nothing is sold and nothing half-written; once
// the database is back, orders resume (db-lock-table only after the TTL of
// the lock row A could not delete) and the database's count is exactly the
// orders the buyers were told they had.
func dbLockSinglePoint(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"db-lock-table", "db-pessimistic", "redis"} {
		r, err := sc.dbOutageRound(ctx, strategy)
		if err != nil {
			return "", false, err
		}
		pass = pass && r.ok()
		parts = append(parts, r.String())
	}
	return strings.Join(parts, " | "), pass, nil
}

// outageRound is what one strategy's round observed.
type outageRound struct {
	strategy string
	aInside  bool           // A was still stalled inside its section when every replica was cut
	aKind    string         // A's answer
	during   map[string]int // answers to orders sent and answered while every replica was cut
	late     int            // orders sent during the outage and answered 201 after it ended
	resumed  time.Duration  // from the database's return (as the replicas report it) to the first order
	after    map[string]int // the burst once orders resumed
	orders   int64          // 201s the buyers got, warm-up included
	view     shopapi.SaleView
}

// ok: nothing sold during the outage, every answer then a clean 503, A's
// too if it was inside (a machine slow enough to let A's stall end before
// the cuts were in place may let A commit first: then A's order counts
// like any other), orders again afterwards, and the database's count is
// the 201s: nothing oversold, lost or half-done.
func (r outageRound) ok() bool {
	n := 0
	for k, c := range r.during {
		if k != "db_unavailable" {
			return false
		}
		n += c
	}
	aClean := r.aKind == "db_unavailable" || (!r.aInside && r.aKind == shopapi.KindOrder)
	return n > 0 && aClean && r.after[shopapi.KindOrder] == 8 &&
		r.view.Oversold == 0 && r.view.LostUpdates == 0 && r.view.Sold == r.orders
}

func (r outageRound) String() string {
	inside := "inside its section"
	if !r.aInside {
		inside = "its stall over before the cuts were in place"
	}
	late := ""
	if r.late > 0 {
		late = fmt.Sprintf(", %d sent during it answered 201 once it was over", r.late)
	}
	return fmt.Sprintf("%s: during the outage %s%s (buyer-1, %s: %s); first order %.1f s after the database came back, "+
		"then %d of 8; %s (the database counts %d orders, the buyers got %d)",
		r.strategy, kindList(r.during), late, inside, r.aKind, r.resumed.Seconds(), r.after[shopapi.KindOrder], describe(r.view), r.view.Sold, r.orders)
}

// kindList is "3 db_unavailable, 1 order", sorted.
func kindList(kinds map[string]int) string {
	var out []string
	for k, n := range kinds {
		out = append(out, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "no order sent"
	}
	return strings.Join(out, ", ")
}

// dbOutageRound runs one strategy's round.
func (sc *ScenarioRun) dbOutageRound(ctx context.Context, strategy string) (outageRound, error) {
	r := outageRound{strategy: strategy, during: map[string]int{}}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario db-lock-single-point", Strategy: strategy,
		Stock: 20, TTLMS: int(dbLockRowTTL.Milliseconds())})
	if err != nil {
		return r, err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return r, err
	}
	r.orders = 2 // the warm-up's
	if err := sc.fault(ctx, t1, map[string]any{"kind": "pause_holder", "ms": dbCutHold.Milliseconds()}); err != nil {
		return r, err
	}
	a := sc.orderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.waitPaused(ctx, t1); err != nil {
		return r, err
	}
	for _, t := range sc.Targets {
		if err := sc.fault(ctx, t, map[string]any{"kind": "cut_db", "ms": dbCutFor.Milliseconds()}); err != nil {
			return r, err
		}
	}
	n, err := sc.pausedHolders(ctx, t1)
	if err != nil {
		return r, err
	}
	r.aInside = n > 0
	late, err := sc.probeOutage(ctx, v.ID, r.during)
	if err != nil {
		return r, err
	}
	r.orders += int64(late)
	r.late = late
	if r.aKind = <-a; r.aKind == shopapi.KindOrder {
		r.orders++
	}
	if r.resumed, err = sc.firstOrderAfterOutage(ctx, v.ID); err != nil {
		return r, err
	}
	r.orders++
	r.after, _ = sc.burst(ctx, v.ID, 8, "after")
	r.orders += int64(r.after[shopapi.KindOrder])
	r.view, err = sc.settled(ctx, v.ID) // every order was answered: none is still inside a shop
	return r, err
}

// probeOutage sends orders, alternating between the replicas, while every
// replica is cut, and counts the answers of those that were sent and
// answered inside the outage (a cut still running before and after). The
// last one may be answered after a cut ended, and on a loaded machine with
// a 201 (the shop dialled again once the database was back): such an order
// is not of the outage, but the buyer has it; late says how many.
func (sc *ScenarioRun) probeOutage(ctx context.Context, id uint64, during map[string]int) (late int, err error) {
	for i := 0; ; i++ {
		all, _, err := sc.cutState(ctx)
		if err != nil || !all {
			return late, err
		}
		k := sc.C.Order(ctx, shopapi.OrdersURL(sc.Targets[i%len(sc.Targets)], id), fmt.Sprintf("during%d", i))
		if all, _, err = sc.cutState(ctx); err != nil || !all {
			if k == shopapi.KindOrder {
				late++
			}
			return late, err
		}
		during[k]++
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return late, err
		}
	}
}

// cutState says whether every replica, and whether any, is cut off the
// database now.
func (sc *ScenarioRun) cutState(ctx context.Context) (all, any bool, err error) {
	all = true
	for _, t := range sc.Targets {
		var out struct {
			Left *int64 `json:"db_cut_ms_left"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, t+"/api/faults", nil, http.StatusOK, &out); err != nil {
			return false, false, err
		}
		if out.Left == nil {
			return false, false, fmt.Errorf("%s: GET /api/faults has no db_cut_ms_left (an older shop?)", t)
		}
		all, any = all && *out.Left > 0, any || *out.Left > 0
	}
	return all, any, nil
}

// firstOrderAfterOutage waits until no replica is cut, then buys,
// alternating between them, until an order lands (a minute at most), and
// says how long after the database's return that was.
func (sc *ScenarioRun) firstOrderAfterOutage(ctx context.Context, id uint64) (time.Duration, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		_, anyCut, err := sc.cutState(ctx)
		if err != nil {
			return 0, err
		}
		if !anyCut {
			break
		}
		if err := load.Sleep(ctx, 20*time.Millisecond); err != nil {
			return 0, err
		}
	}
	back := time.Now()
	for i := 0; ; i++ {
		k := sc.C.Order(ctx, shopapi.OrdersURL(sc.Targets[i%len(sc.Targets)], id), fmt.Sprintf("back%d", i))
		if k == shopapi.KindOrder {
			return time.Since(back), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no order within a minute of the database's return (last answer %s)", k)
		}
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, err
		}
	}
}
