package chaos

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The plan is a pure function of the seed and the run's shape: the replay
// line's promise.
func TestPlanFaultsIsSeeded(t *testing.T) {
	sh := planShape{Duration: 10 * time.Minute, Replicas: 3, Configs: 11, Kinds: Kinds,
		Backends: []string{"redis", "redlock-1", "redlock-2", "redlock-3", "zookeeper"}, RedlockN: 3, ZKServers: 3, RedisCfgs: []int{0, 4},
		TTL: 500 * time.Millisecond, MeanGap: 1500 * time.Millisecond, QuietStart: 3 * time.Second, QuietEnd: 5 * time.Second}
	a, b, c := planFaults(7, sh), planFaults(7, sh), planFaults(8, sh)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("the same seed gave two plans")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Fatal("seeds 7 and 8 gave the same plan")
	}
	if n := len(a); n < 300 || n > 500 { // 592 s / 1.5 s = 395 expected
		t.Errorf("%d faults in 10 min with a mean gap of 1.5 s", n)
	}
	seen := map[string]bool{}
	for _, e := range a {
		seen[e.Kind] = true
		if e.At < sh.QuietStart || e.At >= sh.Duration-sh.QuietEnd {
			t.Errorf("%v at %v: outside the noisy window", e, e.At)
		}
		if (e.Kind == string(faultkind.PauseHolder) || e.Kind == string(faultkind.StopProcess)) && e.For < sh.TTL {
			t.Errorf("%v: a stall shorter than the TTL proves nothing", e)
		}
		if strings.HasPrefix(e.Kind, "net_") && !slices.Contains(sh.Backends, e.Backend) {
			t.Errorf("%v: unknown backend", e)
		}
		if e.Kind == string(faultkind.KillZKServer) && !slices.Contains([]string{"zookeeper-1", "zookeeper-2", "zookeeper-3"}, e.Backend) {
			t.Errorf("%v: not a server of the ensemble", e)
		}
		if e.Kind == string(faultkind.DropReply) && !slices.Contains(sh.RedisCfgs, e.Config) {
			t.Errorf("%v: a configuration whose lock is not on Redis", e)
		}
		if e.Kind == string(faultkind.KillRedisMaster) && e.For <= time.Second {
			t.Errorf("%v: down no longer than the Sentinels' down-after: no failover", e)
		}
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("kind %s never drawn in %d faults", k, len(a))
		}
	}
	// Each kind once first: a short run still tries every kind.
	first := map[string]bool{}
	for _, e := range a[:len(Kinds)] {
		first[e.Kind] = true
	}
	if len(first) != len(Kinds) {
		t.Errorf("the first %d faults are %d kinds, want every kind once", len(Kinds), len(first))
	}
}

// An undersell fails like an oversell: a sale of 10 with 2 orders and 5
// units on sale has 3 units neither sold nor sellable (the units a dead
// replica took and nobody gave back).
func TestChaosCheckerFindsStuckUnits(t *testing.T) {
	db := testenv.DB(t, "loadtest")
	store := inventory.NewStore(db)
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db}, nil), sale.Spec{Name: new("chaos stuck"),
		Strategy: new("none"), Stock: new(int64(10)), PerUserLimit: new(int64(1))})
	for _, u := range []string{"u1", "u2"} {
		o := inventory.Order{SaleID: sale.ID, UserID: u, ReplicaID: "test"}
		if err := inventory.InsertOrder(ctx, db, &o); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Exec("UPDATE sales SET stock = 5 WHERE id = ?", sale.ID).Error; err != nil {
		t.Fatal(err)
	}
	c := &chaosConfig{Strategy: "none", MustHold: true, sales: []uint64{sale.ID}}
	var v chaosVerdict
	if err := c.checkStuck(ctx, nil, store, nil, nil, &v); err != nil {
		t.Fatal(err)
	}
	if v.Stuck != 3 || len(v.StuckSales) != 1 || !strings.Contains(strings.Join(v.broken(), ", "), "units stuck 3") {
		t.Fatalf("stuck %d %v, broken %v; want 3 units stuck, named", v.Stuck, v.StuckSales, v.broken())
	}
}

// The checker must be able to fail: a sale whose database disagrees with
// what its buyers were told, in each way it looks for.
func TestChaosCheckerFindsEveryBreak(t *testing.T) {
	db := testenv.DB(t, "loadtest")
	store := inventory.NewStore(db)
	ctx := context.Background()
	// 2 units, 3 orders in the database (oversold 1), the stock never
	// written (3 lost updates); u1 holds 2 (a duplicate).
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db}, nil), sale.Spec{Name: new("chaos checker"),
		Strategy: new("none"), Stock: new(int64(2)), PerUserLimit: new(int64(1))})
	var ids []uint64
	for _, u := range []string{"u1", "u1", "u2"} {
		o := inventory.Order{SaleID: sale.ID, UserID: u, ReplicaID: "test"}
		if err := inventory.InsertOrder(ctx, db, &o); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	c := &chaosConfig{Strategy: "none", MustHold: true, current: sale.ID, sales: []uint64{sale.ID},
		ledger: map[uint64]map[string]*userLedger{}, kinds: map[string]int64{}, hist: hdrhistogram.New(load.HistMinUS, load.HistMaxUS, load.HistSigFigs)}
	c.record(sale.ID, "u1", shopapi.AckOrder, ids[0], shopapi.KindOrder, time.Millisecond)
	c.record(sale.ID, "u1", shopapi.AckUnknown, 0, shopapi.KindTimeout, time.Millisecond) // may explain ids[1]
	c.record(sale.ID, "u2", shopapi.AckRefused, 0, "lock_timeout", time.Millisecond)
	c.record(sale.ID, "u3", shopapi.AckOrder, 999_999_999, shopapi.KindOrder, time.Millisecond) // a 201 whose row is missing
	c.countBadBuyer()                                                                           // a 201 to "u2 ", a lookalike
	v, err := c.check(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	want := chaosVerdict{Sales: 1, Sold: 3, Oversold: 1, LostUpdates: 3, Duplicates: 1, Missing: 1, Phantom: 1, Unknown: 1, BadBuyers: 1}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("verdict %+v, want %+v", v, want)
	}
	if got := strings.Join(v.broken(), ", "); got != "oversold 1, lost updates 3, duplicates 1, 201 without order 1, order without 201 1, lookalike ids sold to 1" {
		t.Errorf("broken: %s", got)
	}
}

// The replay line carries what shapes the plan: parsed back, it gives the
// same flags, so the same schedule (--fenced-only and the ensemble change
// the configurations and the kinds the plan draws from).
func TestChaosReplayLineRoundTrips(t *testing.T) {
	var stderr bytes.Buffer
	f, err := parseChaosFlags([]string{"--seed", "42", "--duration", "30s", "--fenced-only", "--zk-ensemble",
		"--zk-servers", "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3", "--buyers", "2"}, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	line := f.replay()
	args, ok := strings.CutPrefix(line, "loadtest chaos ")
	if !ok {
		t.Fatalf("replay line %q", line)
	}
	g, err := parseChaosFlags(strings.Fields(args), &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	if g.seed != f.seed || g.duration != f.duration || !g.fencedOnly || !g.zkEnsemble || g.zk != f.zk || g.buyers != 2 {
		t.Errorf("replay %q parsed back to %+v, want %+v", line, g, f)
	}
}

// A 503 db_unavailable is an unknown outcome, not a refusal: the shop's
// connection died, and the order's COMMIT may have reached the server
// first. Other shop refusals stay refusals.
func TestChaosOrderDBUnavailableIsUnknown(t *testing.T) {
	for _, c := range []struct {
		code string
		want int
	}{{"db_unavailable", shopapi.AckUnknown}, {"backend_down", shopapi.AckRefused}, {"lock_timeout", shopapi.AckRefused}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"error":%q,"message":"m"}`, c.code)
		}))
		cl := shopapi.NewClient(1, 5*time.Second, "")
		ack, _, _, kind := cl.OrderAck(context.Background(), srv.URL, "u")
		cl.Close()
		srv.Close()
		if ack != c.want || kind != c.code {
			t.Errorf("503 %s: ack %d kind %s, want ack %d", c.code, ack, kind, c.want)
		}
	}
}

// The nemesis's own kill_zk_server on a quiet ensemble, with no random
// schedule: it kills the drawn server, starts it again and returns once
// all three serve, or says why not. It waits as long as another test
// holds the ensemble's kill lock (generously: the lock is held for one
// kill and restart), so the world cannot refuse it here.
func TestNemesisKillsAZKServer(t *testing.T) {
	ens := testenv.ZKEnsemble(t)
	var out bytes.Buffer
	n := &nemesis{out: &out, outMu: &sync.Mutex{}, start: time.Now(), ensemble: ens, zkLockWait: 5 * time.Minute}
	n.withCounts()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e := faultEvent{Kind: string(faultkind.KillZKServer), Backend: "zookeeper-2", For: time.Second}
	if err := n.killZKServer(ctx, e); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(n.harm) > 0 {
		t.Fatalf("not healed: %v\n%s", n.harm, out.String())
	}
	if !strings.Contains(out.String(), ens.Servers[1]+" (") {
		t.Errorf("no kill of %s reported:\n%s", ens.Servers[1], out.String())
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	if err := ens.WaitWhole(wctx); err != nil {
		t.Fatalf("the ensemble is not whole after the kill returned: %v", err)
	}
}

// A refusal is tried again on the next replica until it lands; an answer
// that is no refusal is a defect, counted once and never tried again.
func TestNemesisRetriesRefusals(t *testing.T) {
	var calls []string
	var mu sync.Mutex
	answer := func(status int, code string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls = append(calls, r.Host)
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			if status == http.StatusAccepted {
				fmt.Fprint(w, `{}`)
				return
			}
			fmt.Fprintf(w, `{"error":%q,"message":"m"}`, code)
		}
	}
	busy := httptest.NewServer(answer(http.StatusServiceUnavailable, "sentinel_failed"))
	defer busy.Close()
	ok := httptest.NewServer(answer(http.StatusAccepted, ""))
	defer ok.Close()
	broken := httptest.NewServer(answer(http.StatusInternalServerError, "internal"))
	defer broken.Close()
	cl := shopapi.NewClient(4, 5*time.Second, "")
	defer cl.Close()
	newNemesis := func(targets ...string) *nemesis {
		n := &nemesis{c: cl, targets: targets, out: io.Discard, outMu: &sync.Mutex{}, start: time.Now(),
			retryUntil: time.Now().Add(time.Minute)}
		return n.withCounts()
	}
	n := newNemesis(busy.URL, ok.URL)
	n.attempt(context.Background(), faultEvent{Kind: string(faultkind.PauseHolder), Replica: 0, For: time.Second})
	if n.injected[string(faultkind.PauseHolder)] != 1 || n.refused[string(faultkind.PauseHolder)] != 1 || n.missed[string(faultkind.PauseHolder)] != 0 || len(n.defects) != 0 {
		t.Errorf("refused then landed: injected %v refused %v missed %v defects %v", n.injected, n.refused, n.missed, n.defects)
	}
	n = newNemesis(busy.URL)
	n.attempt(context.Background(), faultEvent{Kind: string(faultkind.PauseHolder), For: time.Second})
	if n.refused[string(faultkind.PauseHolder)] != faultTries || n.missed[string(faultkind.PauseHolder)] != 1 || len(n.defects) != 0 {
		t.Errorf("always refused: refused %v missed %v defects %v, want %d tries, 1 missed", n.refused, n.missed, n.defects, faultTries)
	}
	// kill_redis_master crashed the master and the Sentinels promoted
	// nobody (its replica was held back, say): the fault took effect, and
	// a second try would crash the master again.
	noFailover := httptest.NewServer(answer(http.StatusServiceUnavailable, "no_failover"))
	defer noFailover.Close()
	n = newNemesis(noFailover.URL, ok.URL)
	n.attempt(context.Background(), faultEvent{Kind: string(faultkind.KillRedisMaster), For: 2 * time.Second})
	if n.injected[string(faultkind.KillRedisMaster)] != 1 || n.refused[string(faultkind.KillRedisMaster)] != 0 || len(n.defects) != 0 {
		t.Errorf("no failover: injected %v refused %v defects %v, want injected once, never tried again", n.injected, n.refused, n.defects)
	}
	calls = nil
	n = newNemesis(broken.URL, ok.URL)
	n.attempt(context.Background(), faultEvent{Kind: string(faultkind.PauseHolder), For: time.Second})
	if len(n.defects) != 1 || n.injected[string(faultkind.PauseHolder)] != 0 || len(calls) != 1 {
		t.Errorf("a 500: defects %v injected %v after %d calls, want 1 defect after 1 call", n.defects, n.injected, len(calls))
	}
}
