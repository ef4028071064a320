package failoverlessons

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// An order sent while every replica was cut and answered 201 after the
// cut ended (a loaded machine: the shop dialled again once the database
// was back, and committed) is an order the buyer got: the round counts it,
// or the database's count (one more) reads as an order nobody was told of.
// Interleaving: probe i sees every replica cut, sends; the cut ends; the
// order commits, 201; the probe then sees the cut over and stops.
func TestProbeOutageCountsAnOrderAnsweredAfterTheCut(t *testing.T) {
	var cutOver atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/faults":
			left := 1000
			if cutOver.Load() {
				left = 0
			}
			fmt.Fprintf(w, `{"db_cut_ms_left":%d}`, left)
		case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
			cutOver.Store(true) // the cut ends while this order is inside the shop
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"order_id":7}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	sc := &scenarioRun{&lessons.ScenarioRun{C: shopapi.NewClient(4, 5*time.Second, ""), Targets: []string{srv.URL}}}
	defer sc.C.Close()
	during := map[string]int{}
	late, _, err := sc.probeOutage(context.Background(), 1, during, nil)
	if err != nil {
		t.Fatal(err)
	}
	if late != 1 || len(during) != 0 {
		t.Errorf("late 201s %d, during %v; want 1 late 201 and nothing counted as during the outage", late, during)
	}
}

// A round of db-lock-single-point passes only when buyer-1 was inside its
// section when the cuts landed and was refused, and the lock went the way
// the lesson says: db-lock-table's lock row (buyer-1's, undeletable in the
// outage) still there once the database was back and no order before it
// expired; db-pessimistic's first order before a lock row taken before the
// outage could have expired (dbLockRowTTL - dbCutFor after the return).
func TestOutageRoundNeedsBuyer1InsideAndTheLockGoneItsWay(t *testing.T) {
	base := outageRound{aInside: true, aDuring: true, aKind: "db_unavailable", during: map[string]int{"db_unavailable": 20},
		after: map[string]int{shopapi.KindOrder: 8}, orders: 11, view: shopapi.SaleView{Sold: 11}}
	table := base
	table.strategy, table.row, table.rowLeft, table.resumed = "db-lock-table",
		lessons.LockRow{Present: true, Owner: "p1-a", Holds: 1, ExpiresInMS: 2300}, 2300*time.Millisecond, 2800*time.Millisecond
	pess := base
	pess.strategy, pess.resumed = "db-pessimistic", 30*time.Millisecond
	redis := base
	redis.strategy, redis.resumed = "redis", 900*time.Millisecond
	for _, r := range []outageRound{table, pess, redis} {
		if ok, why := r.ok(); !ok {
			t.Fatalf("%s: the evidence failed: %s", r.strategy, why)
		}
	}
	for _, tc := range []struct {
		name  string
		round outageRound
		edit  func(*outageRound)
		why   string
	}{
		{"buyer-1 not inside, it bought", pess, func(r *outageRound) { r.aInside, r.aKind = false, shopapi.KindOrder }, "not inside"},
		{"buyer-1 not inside, refused", redis, func(r *outageRound) { r.aInside = false }, "not inside"},
		{"buyer-1 inside and bought", table, func(r *outageRound) { r.aKind = shopapi.KindOrder }, "buyer-1 answered order"},
		{"an order sold in the outage", pess, func(r *outageRound) { r.during[shopapi.KindOrder] = 1 }, "during the outage"},
		{"no order in the outage", redis, func(r *outageRound) { r.during = map[string]int{} }, "no order"},
		{"the burst after fell short", redis, func(r *outageRound) { r.after[shopapi.KindOrder] = 7 }, "7 of 8"},
		{"a 201 without its order", pess, func(r *outageRound) { r.view.Sold = 12 }, "counts 12"},
		{"lock table: buyer-1's row gone after the outage", table, func(r *outageRound) { r.row = lessons.LockRow{} }, "no lock row"},
		{"lock table: an order before the row expired", table, func(r *outageRound) { r.resumed = 100 * time.Millisecond }, "before buyer-1's lock row"},
		{"pessimistic: waited as long as a lock row", pess, func(r *outageRound) { r.resumed = dbLockRowTTL - dbCutFor }, "not at once"},
	} {
		r := tc.round
		r.during, r.after = maps.Clone(r.during), maps.Clone(r.after)
		tc.edit(&r)
		ok, why := r.ok()
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// A round is judged only when it set the lesson up: buyer-1 inside when
// the cuts landed; on db-lock-table buyer-1 also answered (its release
// failed) while every replica was still cut, and a row missing after the
// outage was missing before it could have expired; and at least one order
// was sent and answered while every replica was cut (on a loaded machine
// the 2.5 s outage can pass before a probe's answer comes back). Otherwise
// the round is run again, never passed.
func TestOutageRoundJudgedOnlyWhenSetUp(t *testing.T) {
	base := outageRound{strategy: "db-lock-table", aInside: true, aDuring: true, row: lessons.LockRow{Present: true},
		during: map[string]int{"db_unavailable": 3}}
	for _, tc := range []struct {
		name string
		edit func(*outageRound)
		want bool
	}{
		{"set up", func(*outageRound) {}, true},
		{"buyer-1's stall over before the cuts", func(r *outageRound) { r.aInside = false }, false},
		{"buyer-1 answered after the outage", func(r *outageRound) { r.aDuring = false }, false},
		{"the row gone when it could have expired", func(r *outageRound) { r.row, r.rowReadLate = lessons.LockRow{}, true }, false},
		{"the row gone before it could expire: judged (and failed)", func(r *outageRound) { r.row = lessons.LockRow{} }, true},
		{"db-pessimistic: buyer-1 answered after the outage", func(r *outageRound) { r.strategy, r.aDuring = "db-pessimistic", false }, true},
		{"redis: buyer-1's stall over before the cuts", func(r *outageRound) { r.strategy, r.aInside = "redis", false }, false},
		// A loaded machine: the first probe's answer came after the cut ended.
		{"no order sent and answered inside the outage", func(r *outageRound) { r.during = map[string]int{} }, false},
		{"redis: no order sent and answered inside the outage", func(r *outageRound) { r.strategy, r.during = "redis", map[string]int{} }, false},
	} {
		r := base
		tc.edit(&r)
		if got, _ := r.setUp(); got != tc.want {
			t.Errorf("%s: set up %v, want %v", tc.name, got, tc.want)
		}
	}
}

// probeOutage says buyer-1 answered during the outage only when its answer
// had come before a read that still found every replica cut: answered
// then, its release ran while the database was unreachable.
func TestProbeOutageSeesBuyer1AnswerInsideTheOutage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answered bool // buyer-1's answer already in before the probe starts
		want     bool
	}{
		{"answered inside the outage", true, true},
		{"not answered while cut", false, false},
	} {
		var orders atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.Method == http.MethodGet && r.URL.Path == "/api/faults":
				left := 1000
				if orders.Load() >= 2 {
					left = 0
				}
				fmt.Fprintf(w, `{"db_cut_ms_left":%d}`, left)
			case r.Method == http.MethodPost && r.URL.Path == "/api/sales/1/orders":
				orders.Add(1)
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, `{"error":"db_unavailable"}`)
			default:
				w.WriteHeader(http.StatusNotFound)
			}
		}))
		sc := &scenarioRun{&lessons.ScenarioRun{C: shopapi.NewClient(4, 5*time.Second, ""), Targets: []string{srv.URL}}}
		a := make(chan string, 1)
		if tc.answered {
			a <- "db_unavailable"
		}
		_, aDuring, err := sc.probeOutage(context.Background(), 1, map[string]int{}, a)
		sc.C.Close()
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if aDuring != tc.want {
			t.Errorf("%s: aDuring %v, want %v", tc.name, aDuring, tc.want)
		}
	}
}
