package chaos

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The queue checker's rules, on made-up tickets and orders: each rule must
// be able to fail.

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }

// A lost ticket is excused only by a non-durable restart that ended after
// its request was sent.
func TestLossExcuse(t *testing.T) {
	restarts := []redisRestartRecord{
		{Mode: shopapi.DurabilityNone, Start: at(10), End: at(11)},
		{Mode: shopapi.DurabilityAlways, Start: at(20), End: at(21)},
		{Mode: shopapi.DurabilityEverysec, Start: at(30), End: at(31)},
		{Mode: shopapi.DurabilityAlways, Start: at(40), End: at(41)},
	}
	for _, tc := range []struct {
		sent int
		mode string
		ok   bool
	}{
		{5, shopapi.DurabilityNone, true},
		{11, shopapi.DurabilityNone, true},     // sent as the restart ended: it may have taken it
		{15, shopapi.DurabilityEverysec, true}, // the always restart kept it, the everysec one may not have
		{35, "", false},                        // only an always restart came after
		{50, "", false},                        // no restart after it at all
		{31, shopapi.DurabilityEverysec, true}, // the boundary is inclusive
		{32, "", false},
	} {
		mode, ok := lossExcuse(at(tc.sent), restarts)
		if mode != tc.mode || ok != tc.ok {
			t.Errorf("sent at %d s: excuse %q %v, want %q %v", tc.sent, mode, ok, tc.mode, tc.ok)
		}
	}
	if _, ok := lossExcuse(at(0), nil); ok {
		t.Error("a loss without any restart was excused")
	}
}

func TestJudgeTickets(t *testing.T) {
	tickets := map[string]ticketRecord{
		"ot_c": {user: "u1", sent: at(1)}, "ot_f": {user: "u2", sent: at(1)},
		"ot_lost_none": {user: "u3", sent: at(1)}, "ot_lost_always": {user: "u4", sent: at(25)},
		"ot_pending": {user: "u5", sent: at(1)}, "ot_unread": {user: "u6", sent: at(1)},
	}
	states := map[string]string{"ot_c": shopapi.TicketConfirmed, "ot_f": shopapi.TicketFailed, "ot_lost_none": shopapi.TicketLost,
		"ot_lost_always": shopapi.TicketLost, "ot_pending": shopapi.TicketPending}
	restarts := []redisRestartRecord{{Mode: shopapi.DurabilityNone, End: at(10)}, {Mode: shopapi.DurabilityAlways, End: at(30)}}
	var q ticketVerdict
	judgeTickets(tickets, states, restarts, &q)
	if q.Accepted != 6 || q.Confirmed != 1 || q.Failed != 1 || q.Lost != 1 || q.LostDurable != 1 || q.Pending != 2 {
		t.Errorf("verdict %+v", q)
	}
	if q.LostBy[shopapi.DurabilityNone] != 1 || len(q.LostBy) != 1 || lostModes(q.LostBy) != "none:1" {
		t.Errorf("lost by mode %v", q.LostBy)
	}
	want := []string{"202 lost with always 1", "202 never settled 2"}
	if got := q.broken(); !slices.Equal(got, want) {
		t.Errorf("broken %q, want %q", got, want)
	}
}

func TestJudgeOrders(t *testing.T) {
	ptr := func(s string) *string { return &s }
	tickets := map[string]ticketRecord{"ot_a": {user: "u1"}, "ot_b": {user: "u2"}}
	users := map[string]*userLedger{"u3": {unknown: 1}}
	rows := []orderTicketRow{
		{UserID: "u1", OrderTicket: ptr("ot_a")},
		{UserID: "u1", OrderTicket: ptr("ot_a")},             // a ticket with two orders
		{UserID: "u2", OrderTicket: ptr("ot_b"), Late: true}, // paid after its pay-by
		{UserID: "u2", OrderTicket: nil},                     // an async order without a ticket
		{UserID: "u3", OrderTicket: ptr("ot_x")},             // explained by u3's unsure answer
		{UserID: "u4", OrderTicket: ptr("ot_y")},             // nobody was given this ticket
	}
	var q ticketVerdict
	phantom := judgeOrders(rows, tickets, users, &q)
	if phantom != 1 || q.TwoOrders != 1 || q.PaidLate != 1 || q.NoTicket != 1 {
		t.Errorf("phantom %d, verdict %+v", phantom, q)
	}
	q.Drift = -2
	got := strings.Join(q.broken(), ", ")
	if got != "order without ticket 1, ticket with two orders 1, paid after expiry 1, drift -2" {
		t.Errorf("broken: %s", got)
	}
	q = ticketVerdict{StockApart: stockApart(shopapi.ReconcileView{DBStock: 5, StoreStock: 3})}
	if got := strings.Join(q.broken(), ", "); got != "Redis and database stocks apart by 2" {
		t.Errorf("stocks apart: %s", got)
	}
	if stockApart(shopapi.ReconcileView{DBStock: 5, StoreStock: -1}) != 0 || stockApart(shopapi.ReconcileView{DBStock: 5, StoreStock: 3, InFlight: 2}) != 0 {
		t.Error("a lost stock or one with tickets in flight was compared")
	}
	var clean ticketVerdict
	if judgeOrders(rows[:1], tickets, users, &clean) != 0 || len(clean.broken()) != 0 {
		t.Errorf("one good order: %+v", clean)
	}
}

// A configuration's verdict fails on a queue break like on any other.
func TestChaosVerdictCarriesTheQueue(t *testing.T) {
	c := &chaosConfig{Strategy: "redis-lua-stock", Async: true, MustHold: true}
	v := chaosVerdict{Sold: 3, Queue: &ticketVerdict{Accepted: 4, Confirmed: 3, LostDurable: 1}}
	verdict, fail := c.verdict(v)
	if !fail || !strings.Contains(verdict, "202 lost with always 1") {
		t.Errorf("verdict %q, fail %v", verdict, fail)
	}
	v.Queue.LostDurable, v.Queue.Lost = 0, 1 // an excused loss is reported, not failed
	if verdict, fail := c.verdict(v); fail || verdict != "PASS" {
		t.Errorf("excused loss: verdict %q, fail %v", verdict, fail)
	}
	if c.name() != "redis-lua-stock/async" {
		t.Errorf("name %q", c.name())
	}
}

// kill_consumer needs a queue configuration; the plan draws each
// restart's durability and each kill's point.
func TestQueueFaultsInThePlan(t *testing.T) {
	sync := []*chaosConfig{{Strategy: "redis"}}
	kinds, skipped := usableKinds([]string{string(faultkind.KillConsumer), string(faultkind.RestartRedis)}, sync, true, backendAddrs{Redis: "r"})
	if slices.Contains(kinds, string(faultkind.KillConsumer)) || skipped[string(faultkind.KillConsumer)] == "" {
		t.Errorf("no async configuration: kinds %v, skipped %v", kinds, skipped)
	}
	async := append(sync, &chaosConfig{Strategy: "redis-lua-stock", Async: true})
	if kinds, _ := usableKinds([]string{string(faultkind.KillConsumer)}, async, true, backendAddrs{}); !slices.Equal(kinds, []string{string(faultkind.KillConsumer)}) {
		t.Errorf("with an async configuration: kinds %v", kinds)
	}
	if _, skipped := usableKinds([]string{string(faultkind.KillConsumer)}, async, false, backendAddrs{}); skipped[string(faultkind.KillConsumer)] == "" {
		t.Error("kill_consumer injected into replicas the run cannot restart")
	}
	sh := planShape{Duration: 5 * time.Minute, Replicas: 3, Configs: 4, Kinds: []string{string(faultkind.RestartRedis), string(faultkind.KillConsumer)},
		Backends: []string{"redis"}, TTL: 500 * time.Millisecond, MeanGap: time.Second, QuietStart: 3 * time.Second, QuietEnd: 5 * time.Second}
	modes, points := map[string]int{}, map[string]int{}
	for _, e := range planFaults(11, sh) {
		switch e.Kind {
		case string(faultkind.RestartRedis):
			modes[e.Durability]++
			if !strings.Contains(e.String(), "durability "+e.Durability) {
				t.Errorf("%v: the line does not say the durability", e)
			}
		case string(faultkind.KillConsumer):
			points[e.Point]++
		}
	}
	if len(modes) != 3 || modes[shopapi.DurabilityNone] == 0 || modes[shopapi.DurabilityAlways] == 0 || modes[shopapi.DurabilityEverysec] == 0 {
		t.Errorf("durabilities drawn: %v", modes)
	}
	if len(points) != 2 || points["before_commit"] == 0 || points["after_commit"] == 0 {
		t.Errorf("kill points drawn: %v", points)
	}
}

// A queued configuration whose orders all expired unpaid still proved
// something (tickets became orders); one whose tickets made no order did not.
func TestQueuedConfigurationProvedByConfirmedTickets(t *testing.T) {
	c := &chaosConfig{MustHold: true, Async: true}
	if v, fail := c.verdict(chaosVerdict{Queue: &ticketVerdict{Accepted: 3, Confirmed: 3}}); fail {
		t.Fatalf("3 confirmed, all expired: %q, want PASS", v)
	}
	if v, fail := c.verdict(chaosVerdict{Queue: &ticketVerdict{Accepted: 3}}); !fail {
		t.Fatalf("no ticket confirmed: %q, want a failure", v)
	}
}
