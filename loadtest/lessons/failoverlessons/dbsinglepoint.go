package failoverlessons

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
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

// dbOutageTries bounds the rounds run per strategy to get one that set the
// lesson up (outageRound.setUp).
const dbOutageTries = 3

// dbLockSinglePoint: the database as a single point of failure. For the two
// locks kept in the database (db-lock-table, db-pessimistic) and, to
// compare, redis (a lock elsewhere, but the stock of record is in the
// database all the same): every replica is cut off the database while A is
// inside its section. Every order during the outage fails cleanly (503
// db_unavailable), A's too; nothing is sold and nothing half-written; once
// the database is back, orders resume: db-pessimistic at once (A's row
// lock went with its connection), db-lock-table only once the lock row A
// could not delete, seen still there after the outage, has expired; and the
// database's count is exactly the orders the buyers were told they had.
func dbLockSinglePoint(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, strategy := range []string{"db-lock-table", "db-pessimistic", "redis"} {
		var r outageRound
		for try := 1; ; try++ {
			var err error
			if r, err = sc.dbOutageRound(ctx, strategy); err != nil {
				return "", false, err
			}
			r.tries = try
			set, why := r.setUp()
			if set {
				break
			}
			if try == dbOutageTries {
				return "", false, fmt.Errorf("%s: %d rounds, none set the lesson up; the last: %s (%s)", strategy, try, why, r)
			}
		}
		ok, why := r.ok()
		pass = pass && ok
		s := r.String()
		if !ok {
			s += ": FAIL: " + why
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | "), pass, nil
}

// outageRound is what one strategy's round observed.
type outageRound struct {
	strategy string
	tries    int            // the rounds run to get this one (setUp)
	aInside  bool           // A was still stalled inside its section when every replica was cut
	aDuring  bool           // A had its answer (its release done) while every replica was still cut
	aKind    string         // A's answer
	during   map[string]int // answers to orders sent and answered while every replica was cut
	late     int            // orders sent during the outage and answered 201 after it ended
	// db-lock-table: row is the sale's lock row, read as soon as no replica
	// was cut any more (any row then is A's: nobody else could insert one in
	// the outage); rowLeft is the time from the database's return to that
	// row's expiry, as the read says (the read's start + its expires_in_ms:
	// the expiry is no earlier); rowReadLate says the read ended after the
	// earliest time A's row could have expired (A sent + dbLockRowTTL).
	row         lessons.LockRow
	rowLeft     time.Duration
	rowReadLate bool
	resumed     time.Duration  // from the database's return (as the replicas report it) to the first order's 201
	after       map[string]int // the burst once orders resumed
	orders      int64          // 201s the buyers got, warm-up included
	view        shopapi.SaleView
}

// setUp says whether the round set the lesson up, and why not: A was
// inside its section when the cuts landed (on a machine slow enough its
// stall may end first, and A commits like any other order); on
// db-lock-table A also answered, its release failed, while every replica
// was still cut (otherwise its release may have reached the database once
// it was back, 0030), and a lock row missing after the outage was missing
// before it could have expired; and at least one order was sent and
// answered while every replica was cut (on a loaded machine the outage can
// pass before a probe's answer comes back). A round not set up is run
// again, never judged.
func (r outageRound) setUp() (bool, string) {
	switch {
	case !r.aInside:
		return false, "buyer-1's stall was over before the cuts were in place"
	case r.strategy == "db-lock-table" && !r.aDuring:
		return false, "buyer-1 answered only after the outage: its release may have reached the database"
	case r.strategy == "db-lock-table" && !r.row.Present && r.rowReadLate:
		return false, "the lock row, read only after it could have expired, was gone"
	case len(r.during) == 0:
		return false, "no order was sent and answered while every replica was cut (the outage passed before a probe's answer came back)"
	}
	return true, ""
}

// ok is the round's verdict, and why not: A inside its section and refused
// (503 db_unavailable: its transaction rolled back), every order sent and
// answered in the outage a clean 503, orders again afterwards, and the
// database's count the 201s: nothing oversold, lost or half-done. And the
// lock went its own way: db-lock-table's row of A's still there once the
// database was back, and no order before it expired; db-pessimistic's first
// order sooner than a lock row taken before the outage could have expired
// (dbLockRowTTL - dbCutFor after the return: A's row lock went with its
// connection, nothing to wait for).
func (r outageRound) ok() (bool, string) {
	n := 0
	for k, c := range r.during {
		if k != "db_unavailable" {
			return false, fmt.Sprintf("%d answered %s during the outage", c, k)
		}
		n += c
	}
	switch {
	case !r.aInside:
		return false, "buyer-1 was not inside its section when the cuts landed"
	case r.aKind != "db_unavailable":
		return false, "buyer-1 answered " + r.aKind + ", not db_unavailable"
	case n == 0:
		return false, "no order sent and answered during the outage"
	case r.after[shopapi.KindOrder] != 8:
		return false, fmt.Sprintf("%d of 8 ordered after the outage", r.after[shopapi.KindOrder])
	case r.view.Oversold != 0 || r.view.LostUpdates != 0:
		return false, fmt.Sprintf("oversold %d lost_updates %d", r.view.Oversold, r.view.LostUpdates)
	case r.view.Sold != r.orders:
		return false, fmt.Sprintf("the database counts %d orders, the buyers got %d", r.view.Sold, r.orders)
	}
	switch r.strategy {
	case "db-lock-table":
		if !r.row.Present {
			return false, "no lock row after the outage: buyer-1's was deleted"
		}
		if r.resumed < r.rowLeft {
			return false, fmt.Sprintf("an order %.1f s after the database came back, before buyer-1's lock row expired (%.1f s)",
				r.resumed.Seconds(), r.rowLeft.Seconds())
		}
	case "db-pessimistic":
		if bound := dbLockRowTTL - dbCutFor; r.resumed >= bound {
			return false, fmt.Sprintf("the first order %.1f s after the database came back, not at once (%.1f s at most)",
				r.resumed.Seconds(), bound.Seconds())
		}
	}
	return true, ""
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
	row := ""
	if r.strategy == "db-lock-table" {
		row = "; after it " + r.row.String()
		if r.row.Present {
			row = fmt.Sprintf("; after it buyer-1's lock row still there (%s), expiring %.1f s after the database came back", r.row, r.rowLeft.Seconds())
		}
	}
	tries := ""
	if r.tries > 1 {
		tries = fmt.Sprintf(" (round %d)", r.tries)
	}
	return fmt.Sprintf("%s%s: during the outage %s%s (buyer-1, %s: %s)%s; first order %.1f s after the database came back, "+
		"then %d of 8; %s (the database counts %d orders, the buyers got %d)",
		r.strategy, tries, lessons.KindList(r.during), late, inside, r.aKind, row, r.resumed.Seconds(), r.after[shopapi.KindOrder],
		lessons.Describe(r.view), r.view.Sold, r.orders)
}

// dbOutageRound runs one strategy's round.
func (sc *scenarioRun) dbOutageRound(ctx context.Context, strategy string) (outageRound, error) {
	r := outageRound{strategy: strategy, during: map[string]int{}}
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario db-lock-single-point", Strategy: strategy,
		Stock: 20, TTLMS: int(dbLockRowTTL.Milliseconds())})
	if err != nil {
		return r, err
	}
	if err := sc.Warm(ctx, v.ID, t1, sc.Last()); err != nil {
		return r, err
	}
	r.orders = 2 // the warm-up's
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": dbCutHold.Milliseconds()}); err != nil {
		return r, err
	}
	aSent := time.Now() // A's lock row, inserted after this, expires dbLockRowTTL after it or later
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil {
		return r, err
	}
	for _, t := range sc.Targets {
		if err := sc.Fault(ctx, t, map[string]any{"kind": faultkind.CutDB, "ms": dbCutFor.Milliseconds()}); err != nil {
			return r, err
		}
	}
	n, err := sc.PausedHolders(ctx, t1)
	if err != nil {
		return r, err
	}
	r.aInside = n > 0
	late, aDuring, err := sc.probeOutage(ctx, v.ID, r.during, a)
	if err != nil {
		return r, err
	}
	r.orders += int64(late)
	r.late, r.aDuring = late, aDuring
	if r.aKind = <-a; r.aKind == shopapi.KindOrder {
		r.orders++
	}
	back, err := sc.outageOver(ctx)
	if err != nil {
		return r, err
	}
	if strategy == "db-lock-table" {
		readAt := time.Now()
		if r.row, err = sc.LockRow(ctx, t1, v.ID); err != nil {
			return r, err
		}
		r.rowLeft = readAt.Sub(back) + time.Duration(r.row.ExpiresInMS)*time.Millisecond
		r.rowReadLate = time.Since(aSent) >= dbLockRowTTL
	}
	if r.resumed, err = sc.firstOrderSince(ctx, v.ID, back); err != nil {
		return r, err
	}
	r.orders++
	r.after, _ = sc.Burst(ctx, v.ID, 8, "after")
	r.orders += int64(r.after[shopapi.KindOrder])
	r.view, err = sc.Settled(ctx, v.ID) // every order was answered: none is still inside a shop
	return r, err
}

// probeOutage sends orders, alternating between the replicas, while every
// replica is cut, and counts the answers of those that were sent and
// answered inside the outage (a cut still running before and after). The
// last one may be answered after a cut ended, and on a loaded machine with
// a 201 (the shop dialled again once the database was back): such an order
// is not of the outage, but the buyer has it; late says how many. aDuring
// says A's answer (on a, not taken from it) had come before a read that
// still found every replica cut.
func (sc *scenarioRun) probeOutage(ctx context.Context, id uint64, during map[string]int, a <-chan string) (late int, aDuring bool, err error) {
	for i := 0; ; i++ {
		answered := len(a) > 0
		all, _, err := sc.cutState(ctx)
		if err != nil || !all {
			return late, aDuring, err
		}
		aDuring = aDuring || answered
		k := sc.C.Order(ctx, shopapi.OrdersURL(sc.Targets[i%len(sc.Targets)], id), fmt.Sprintf("during%d", i))
		answered = len(a) > 0
		if all, _, err = sc.cutState(ctx); err != nil || !all {
			if k == shopapi.KindOrder {
				late++
			}
			return late, aDuring, err
		}
		aDuring = aDuring || answered
		during[k]++
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return late, aDuring, err
		}
	}
}

// cutState says whether every replica, and whether any, is cut off the
// database now.
func (sc *scenarioRun) cutState(ctx context.Context) (all, any bool, err error) {
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

// outageOver waits until no replica is cut and says when it saw that: the
// database's return, as the replicas report it.
func (sc *scenarioRun) outageOver(ctx context.Context) (time.Time, error) {
	for {
		_, anyCut, err := sc.cutState(ctx)
		if err != nil {
			return time.Time{}, err
		}
		if !anyCut {
			return time.Now(), nil
		}
		if err := load.Sleep(ctx, 20*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// firstOrderSince buys, alternating between the replicas, until an order
// lands (a minute at most), and says how long after back its 201 came.
func (sc *scenarioRun) firstOrderSince(ctx context.Context, id uint64, back time.Time) (time.Duration, error) {
	deadline := time.Now().Add(time.Minute)
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
