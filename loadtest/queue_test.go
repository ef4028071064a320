package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// asyncShop is a fake shop with an async sale: it answers 202 and a ticket
// to the first stock buyers (layer queue), then sold_out; its sale view
// shows the tickets in flight until drainAfter views have been read, then
// none. Tickets end confirmed, except the ones lost (404) or stuck
// (pending for ever); drift is its reconciliation's answer.
type asyncShop struct {
	stock      int
	drainAfter int
	lost       map[int]bool // ticket numbers (1-based) the shop forgets
	stuck      map[int]bool // ticket numbers that stay pending
	foreign    map[int]bool // confirmed with an order that carries another ticket
	shared     map[int]bool // confirmed with ticket 1's order
	drift      int64

	mu       sync.Mutex
	created  shopapi.SaleRequest
	tickets  map[string]int // ticket -> its number
	views    int
	asked    map[string]int // GET /api/orders/{ticket} per ticket
	noTicket bool           // 202s without an order_ticket
	// limitReads answers a ticket's first read 429 rate_limited unless it
	// carries the admin token tok, as the shop's per-IP limit does;
	// limited counts those answers.
	limitReads bool
	limited    int
}

func (f *asyncShop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, layer string, v any) {
		w.Header().Set("Content-Type", "application/json")
		if layer != "" {
			w.Header().Set(shopapi.LayerHeader, layer)
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	settled := func() int64 { return int64(len(f.tickets) - len(f.stuck)) }
	switch p := r.URL.Path; {
	case r.Method == http.MethodGet && p == "/api/strategies":
		reply(http.StatusOK, "", []shopapi.StrategyInfo{{Name: "redis-lua-stock", Safe: true, Available: true}})
	case r.Method == http.MethodPost && p == "/api/sales":
		_ = json.NewDecoder(r.Body).Decode(&f.created)
		reply(http.StatusCreated, "", shopapi.SaleView{ID: 7, InitialStock: int64(f.stock), Stock: int64(f.stock)})
	case r.Method == http.MethodPost && p == "/api/sales/7/orders":
		if len(f.tickets) >= f.stock {
			reply(http.StatusConflict, "store", shopapi.APIErrorBody{Error: shopapi.KindSoldOut})
			return
		}
		n := len(f.tickets) + 1
		ticket := fmt.Sprintf("ot_7_%032x", n)
		f.tickets[ticket] = n
		body := map[string]any{"order_ticket": ticket, "sale_id": 7, "state": "pending", "poll": "/api/orders/" + ticket}
		if f.noTicket {
			delete(body, "order_ticket")
		}
		reply(http.StatusAccepted, "queue", body)
	case r.Method == http.MethodGet && p == "/api/sales/7":
		f.views++
		inFlight := int64(len(f.tickets))
		if f.views > f.drainAfter {
			inFlight = int64(len(f.stuck))
		}
		first, last := time.Unix(100, 0).UTC(), time.Unix(102, 0).UTC()
		reply(http.StatusOK, "", shopapi.SaleView{ID: 7, InitialStock: int64(f.stock), Sold: settled(), Stock: int64(f.stock) - settled(),
			Queue: &shopapi.QueueView{Accepted: int64(len(f.tickets)), InFlight: inFlight, Confirmed: settled(),
				ConfirmP50MS: 12, ConfirmP99MS: 34, FirstAcceptedAt: &first, LastConfirmedAt: &last}})
	case r.Method == http.MethodGet && p == "/api/sales/7/reconcile":
		reply(http.StatusOK, "", shopapi.ReconcileView{Drift: f.drift})
	case r.Method == http.MethodGet && p == "/api/queue/durability":
		reply(http.StatusOK, "", map[string]string{"mode": "always", "addr": "x"})
	case r.Method == http.MethodGet && strings.HasPrefix(p, "/api/orders/"):
		ticket := strings.TrimPrefix(p, "/api/orders/")
		f.asked[ticket]++
		n, ok := f.tickets[ticket]
		switch {
		case f.limitReads && f.asked[ticket] == 1 && r.Header.Get("Authorization") != "Bearer tok":
			f.limited++
			w.Header().Set("Retry-After", "1")
			reply(http.StatusTooManyRequests, "", shopapi.APIErrorBody{Error: "rate_limited"})
		case !ok || f.lost[n]:
			reply(http.StatusNotFound, "", shopapi.APIErrorBody{Error: "not_found", Field: "ref"})
		case f.stuck[n]:
			reply(http.StatusOK, "", map[string]any{"order_ticket": ticket, "state": "pending"})
		default:
			order := map[string]any{"order_id": n, "order_ticket": ticket}
			if f.foreign[n] {
				order["order_ticket"] = "ot_7_other"
			}
			if f.shared[n] {
				order["order_id"] = 1
			}
			reply(http.StatusOK, "", map[string]any{"order_ticket": ticket, "state": "confirmed", "order": order})
		}
	default:
		reply(http.StatusNotFound, "", shopapi.APIErrorBody{Error: "not_found"})
	}
}

// TestAsyncRunFollowsTickets: an async run counts 202s as accepted (not
// errors), waits for the queue to drain, asks every ticket once it has,
// and fails with a clear line when a ticket is lost, stays pending or has
// no ticket, or when the stocks drift.
func TestAsyncRunFollowsTickets(t *testing.T) {
	tests := []asyncCase{
		{"all confirmed", &asyncShop{}, load.ExitOK, load.VerdictOK, ""},
		{"a lost ticket", &asyncShop{lost: map[int]bool{3: true}}, load.ExitFail, load.VerdictLost, "1 accepted tickets are unknown to the shop (404)"},
		{"a stuck ticket", &asyncShop{stuck: map[int]bool{5: true}}, load.ExitFail, load.VerdictUnsettled, "1 of 10 accepted orders did not settle"},
		{"no ticket in the 202", &asyncShop{noTicket: true}, load.ExitFail, load.VerdictUnsettled, "10 of 10 accepted orders did not settle"},
		{"drift", &asyncShop{drift: -2}, load.ExitFail, load.VerdictDrift, "drifted from the database by -2"},
		{"an order carrying another ticket", &asyncShop{foreign: map[int]bool{4: true}}, load.ExitFail, load.VerdictMismatch,
			"1 confirmed tickets do not name an order of their own"},
		{"two tickets, one order", &asyncShop{shared: map[int]bool{6: true, 7: true}}, load.ExitFail, load.VerdictMismatch,
			"2 confirmed tickets do not name an order of their own"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			asyncRun(t, tc)
		})
	}
}

// asyncCase is one shop TestAsyncRunFollowsTickets runs an async load
// against, and what the run must end with.
type asyncCase struct {
	name    string
	shop    *asyncShop
	code    int
	verdict string
	line    string // in stderr and the table
}

// asyncRun runs the tool in async mode against tc's shop: the exit code,
// the sale created, the report's verdict and counts, the queue figures
// and the table's lines.
func asyncRun(t *testing.T, tc asyncCase) {
	f := tc.shop
	f.stock, f.drainAfter, f.tickets, f.asked = 10, 3, map[string]int{}, map[string]int{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "out.json")
	code, stdout, stderr := runTool(t, "--targets", srv.URL, "--strategy", "redis-lua-stock", "--order-mode", "async",
		"--pay-within-ms", "60000", "--stock", "10", "--buyers", "30", "--concurrency", "4", "--drain-timeout", "1s", "--json", path)
	if code != tc.code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.created.OrderMode != load.OrderModeAsync || f.created.PayWithinMS != 60000 {
		t.Errorf("sale created with order_mode %q pay_within_ms %d, want async 60000", f.created.OrderMode, f.created.PayWithinMS)
	}
	rep := decodeReport(t, mustRead(t, path))
	r := rep.Results[0]
	if r.Verdict != tc.verdict {
		t.Errorf("verdict %q, want %q\n%s", r.Verdict, tc.verdict, stdout)
	}
	if rep.Config.OrderMode != load.OrderModeAsync || rep.Config.PayWithinMS != 60000 {
		t.Errorf("config %+v does not record the order mode and the window", rep.Config)
	}
	if r.Accepted != 10 || r.SoldOut != 20 || r.Orders != 0 || r.HardErrors != 0 || len(r.Errors) != 0 || r.Layers["queue"] != 10 {
		t.Errorf("accepted %d sold_out %d orders %d hard %d errors %v layers %v: want 10 accepted (layer queue), 20 sold_out, nothing else",
			r.Accepted, r.SoldOut, r.Orders, r.HardErrors, r.Errors, r.Layers)
	}
	q := r.Queue
	if q == nil {
		t.Fatalf("no queue in the report:\n%s", mustRead(t, path))
	}
	ticketsFollowed(t, f, q)
	if !strings.Contains(stdout, "accepted (202)") || !strings.Contains(stdout, "202 to confirmed ms p50 12.00  p99 34.00") {
		t.Errorf("the table misses the queue lines:\n%s", stdout)
	}
	if tc.line != "" && (!strings.Contains(stderr, tc.line) || !strings.Contains(stdout, tc.line)) {
		t.Errorf("no line %q in stderr and the table\nstdout:\n%s\nstderr:\n%s", tc.line, stdout, stderr)
	}
}

// ticketsFollowed checks the report's queue against the shop f: the run
// waited for the drain, followed every ticket to its end (asking a pending
// one again), and reports the shop's figures.
func ticketsFollowed(t *testing.T, f *asyncShop, q *load.Queue) {
	// A stuck ticket stays in flight: the wait ends at --drain-timeout.
	if wantDrained := len(f.stuck) == 0; q.Drained != wantDrained || f.views <= f.drainAfter {
		t.Errorf("drained %v after %d sale views, want %v after more than %d: the run did not wait for in_flight 0",
			q.Drained, f.views, wantDrained, f.drainAfter)
	}
	wantTickets := int64(10)
	if f.noTicket {
		wantTickets = 0
	}
	if q.Tickets != wantTickets || q.Confirmed+q.Lost+q.Unsettled+q.Failed != 10 {
		t.Errorf("tickets %d: confirmed %d lost %d unsettled %d failed %d; want %d tickets, 10 ends",
			q.Tickets, q.Confirmed, q.Lost, q.Unsettled, q.Failed, wantTickets)
	}
	for ticket, n := range f.tickets {
		if !f.noTicket && f.asked[ticket] == 0 {
			t.Errorf("ticket %d never checked", n)
		}
		if f.stuck[n] && f.asked[ticket] < 2 {
			t.Errorf("the pending ticket was asked %d times, want it asked again", f.asked[ticket])
		}
	}
	// 10 confirmed between the first 202 and the last confirmation, 2 s apart.
	if q.ConfirmP50MS != 12 || q.ConfirmP99MS != 34 || q.Durability != "always" || q.Drift == nil || *q.Drift != f.drift {
		t.Errorf("queue figures %+v, want the shop's p50 12 p99 34, durability always, drift %d", q, f.drift)
	}
	if want := float64(len(f.tickets)-len(f.stuck)) / 2; q.ConfirmedPerS != want {
		t.Errorf("confirmed/s %v, want %v", q.ConfirmedPerS, want)
	}
}

// The shop limits the order routes per client IP: the ticket checks wait
// out a 429 and read the ticket again, and say the limit paced them; with
// the admin token they are not limited.
func TestTicketChecksWaitOutTheOrderLimit(t *testing.T) {
	for _, token := range []string{"", "tok"} {
		t.Run("token "+token, func(t *testing.T) {
			t.Parallel()
			f := &asyncShop{limitReads: true, stock: 10, drainAfter: 1, tickets: map[string]int{}, asked: map[string]int{}}
			srv := httptest.NewServer(f)
			t.Cleanup(srv.Close)
			path := filepath.Join(t.TempDir(), "out.json")
			code, stdout, stderr := runTool(t, "--targets", srv.URL, "--strategy", "redis-lua-stock", "--order-mode", "async",
				"--stock", "10", "--buyers", "10", "--concurrency", "4", "--drain-timeout", "1s", "--json", path, "--admin-token", token)
			if code != load.ExitOK {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, load.ExitOK, stdout, stderr)
			}
			q := decodeReport(t, mustRead(t, path)).Results[0].Queue
			if q == nil || q.Confirmed != 10 || q.Unsettled != 0 {
				t.Fatalf("queue %+v: want the 10 tickets confirmed", q)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			switch said := strings.Contains(stderr, "rate limited"); {
			case token == "" && (f.limited != 10 || !said):
				t.Fatalf("%d reads limited, want 10, and stderr to say so:\n%s", f.limited, stderr)
			case token != "" && (f.limited != 0 || said):
				t.Fatalf("with the admin token %d reads were limited:\n%s", f.limited, stderr)
			}
		})
	}
}

// TestQueueVerdict: a broken sale keeps its verdict; otherwise an
// unsettled ticket, then a lost one, then a drift fails the run.
func TestQueueVerdict(t *testing.T) {
	zero, two := int64(0), int64(2)
	for _, tc := range []struct {
		in   string
		q    *load.Queue
		want string
	}{
		{load.VerdictOK, nil, load.VerdictOK},
		{load.VerdictOK, &load.Queue{Drift: &zero}, load.VerdictOK},
		{load.VerdictOK, &load.Queue{}, load.VerdictOK}, // drift unknown: shown, not judged
		{load.VerdictOK, &load.Queue{Drift: &two}, load.VerdictDrift},
		{load.VerdictErrors, &load.Queue{Lost: 1, Drift: &two}, load.VerdictLost},
		{load.VerdictOK, &load.Queue{Unsettled: 1, Lost: 1}, load.VerdictUnsettled},
		{load.VerdictOK, &load.Queue{Mismatched: 1, Unsettled: 1}, load.VerdictMismatch},
		{load.VerdictOversold, &load.Queue{Unsettled: 1}, load.VerdictOversold},
		{load.VerdictViolations, &load.Queue{Lost: 1}, load.VerdictViolations},
		{load.VerdictFailed, &load.Queue{Unsettled: 1}, load.VerdictFailed},
	} {
		if got := load.QueueVerdict(tc.in, tc.q); got != tc.want {
			t.Errorf("queueVerdict(%s, %+v) = %s, want %s", tc.in, tc.q, got, tc.want)
		}
	}
	for _, v := range []string{load.VerdictDrift, load.VerdictLost, load.VerdictUnsettled, load.VerdictMismatch} {
		if load.Passes(v) {
			t.Errorf("%s passes", v)
		}
	}
}

// TestTicketOf: the ticket is read from a 202's body in place, and only a
// plausible one is kept.
func TestTicketOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"order_ticket":"ot_7_0123abcd","sale_id":7}`:        "ot_7_0123abcd",
		`{"sale_id":7, "order_ticket": "ot_7_ffff"}`:          "ot_7_ffff", // spaced: decoded
		`{"order_ticket":"../admin"}`:                         "",
		`{"order_ticket":""}`:                                 "",
		`{"state":"pending"}`:                                 "",
		`not json`:                                            "",
		`{"order_ticket":"` + strings.Repeat("a", 101) + `"}`: "",
	} {
		if got := shopapi.TicketOf([]byte(body)); got != want {
			t.Errorf("ticketOf(%s) = %q, want %q", body, got, want)
		}
	}
	if got := shopapi.Classify(http.StatusAccepted, []byte(`{"order_ticket":"ot_1_ab"}`)); got != shopapi.KindAccepted || shopapi.IsHardError(got) {
		t.Errorf("classify(202) = %q, want %q, not a hard error", got, shopapi.KindAccepted)
	}
	if got := shopapi.LayerOf([]byte("queue")); got != "queue" {
		t.Errorf("layerOf(queue) = %q", got)
	}
}

// TestRecorderKeepsTickets: every 202's ticket is kept whichever worker
// recorded it, with the latest 202, and counts in the live progress.
func TestRecorderKeepsTickets(t *testing.T) {
	rec := load.NewRecorder()
	at := time.Unix(1000, 0)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				a := shopapi.Answer{Kind: shopapi.KindAccepted, Layer: "queue", Ticket: fmt.Sprintf("ot_1_%d_%d", w, i)}
				rec.Record(w, a, time.Millisecond, at, at.Add(time.Duration(w*50+i)*time.Millisecond))
			}
		}()
	}
	wg.Wait()
	rec.Record(0, shopapi.Answer{Kind: shopapi.KindSoldOut, Layer: "store"}, time.Millisecond, at, at.Add(time.Hour))
	f := rec.Figures()
	if len(f.Tickets) != 800 || f.All.Kinds[shopapi.KindAccepted] != 800 || rec.Orders.Load() != 800 {
		t.Errorf("%d tickets, %d accepted, %d in progress; want 800 each", len(f.Tickets), f.All.Kinds[shopapi.KindAccepted], rec.Orders.Load())
	}
	if want := at.Add(799 * time.Millisecond); !f.LastAccepted.Equal(want) {
		t.Errorf("last 202 at %v, want %v (a sold_out later does not count)", f.LastAccepted, want)
	}
}
