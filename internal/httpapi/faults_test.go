package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

func faultsOn(t *testing.T) { t.Setenv(config.EnvFaults, "on") }

// Off by default: 403 faults_disabled whatever the body, and GET says so.
func TestFaultsDisabled(t *testing.T) {
	t.Setenv(config.EnvFaults, "")
	e := newEnv(t)
	wantError(t, e.post("/api/faults", `{"kind":"pause_holder","ms":100}`), http.StatusForbidden, "faults_disabled", "")
	var list struct {
		Enabled bool `json:"enabled"`
		Kinds   []struct {
			Kind, Description string
		} `json:"kinds"`
	}
	rec := e.get("/api/faults")
	mustJSON(t, rec, &list)
	if rec.Code != http.StatusOK || list.Enabled || len(list.Kinds) != len(faults.Kinds()) || len(list.Kinds) < 8 || list.Kinds[0].Kind != "pause_holder" || list.Kinds[0].Description == "" {
		t.Errorf("GET /api/faults: %d %s", rec.Code, rec.Body)
	}
}

// With a token set, injecting a fault needs it: 403 without (a fault is refused, not merely unauthenticated), 202 with.
func TestFaultsNeedToken(t *testing.T) {
	faultsOn(t)
	e := newEnv(t, withToken("s3cret"))
	body := `{"kind":"pause_holder","ms":1}`
	wantError(t, e.post("/api/faults", body), http.StatusForbidden, "forbidden", "")
	wantError(t, e.post("/api/faults", body, "Authorization: Bearer wrong"), http.StatusForbidden, "forbidden", "")
	if rec := e.post("/api/faults", body, "Authorization: Bearer s3cret"); rec.Code != http.StatusAccepted {
		t.Fatalf("with the token: %d %s", rec.Code, rec.Body)
	}
	pointsOf(e.lockers).PauseNextSection(0) // leave no pause armed
}

func TestFaultsRejects(t *testing.T) {
	faultsOn(t)
	e := newEnv(t)
	cases := []struct{ name, body, code, field string }{
		{"empty", ``, "empty_body", ""},
		{"kind missing", `{"ms":5}`, "invalid_field", "kind"},
		{"kind unknown", `{"kind":"meteor"}`, "invalid_field", "kind"},
		{"kind number", `{"kind":1}`, "invalid_field", "kind"},
		{"unknown field", `{"kind":"pause_holder","ms":5,"x":1}`, "unknown_field", "x"},
		{"pause ms missing", `{"kind":"pause_holder"}`, "invalid_field", "ms"},
		{"pause ms zero", `{"kind":"pause_holder","ms":0}`, "invalid_field", "ms"},
		{"pause ms too big", `{"kind":"pause_holder","ms":30001}`, "invalid_field", "ms"},
		{"pause ms string", `{"kind":"pause_holder","ms":"5"}`, "invalid_field", "ms"},
		{"pause sale_id", `{"kind":"pause_holder","ms":5,"sale_id":1}`, "invalid_field", "sale_id"},
		{"expire with ms", `{"kind":"expire_zk_session","ms":5}`, "invalid_field", "ms"},
		{"slow ms missing", `{"kind":"slow_db","sale_id":1}`, "invalid_field", "ms"},
		{"slow sale missing", `{"kind":"slow_db","ms":5}`, "invalid_field", "sale_id"},
		{"slow sale negative", `{"kind":"slow_db","ms":5,"sale_id":-1}`, "invalid_field", "sale_id"},
		{"slow node", `{"kind":"slow_db","ms":5,"sale_id":1,"node":"redis"}`, "invalid_field", "node"},
		{"crash with ms", `{"kind":"crash_after_setnx","ms":5}`, "invalid_field", "ms"},
		{"crash with node", `{"kind":"crash_after_setnx","node":"redis"}`, "invalid_field", "node"},
		{"stop ms missing", `{"kind":"stop_process"}`, "invalid_field", "ms"},
		{"stop ms zero", `{"kind":"stop_process","ms":0}`, "invalid_field", "ms"},
		{"stop ms too big", `{"kind":"stop_process","ms":30001}`, "invalid_field", "ms"},
		{"stop sale_id", `{"kind":"stop_process","ms":5,"sale_id":1}`, "invalid_field", "sale_id"},
		{"kill ms missing", `{"kind":"kill_process"}`, "invalid_field", "ms"},
		{"kill ms negative", `{"kind":"kill_process","ms":-1}`, "invalid_field", "ms"},
		{"kill node", `{"kind":"kill_process","ms":5,"node":"redis"}`, "invalid_field", "node"},
		{"restart node missing", `{"kind":"restart_redis"}`, "invalid_field", "node"},
		{"restart node number", `{"kind":"restart_redis","node":1}`, "invalid_field", "node"},
		{"restart node unknown", `{"kind":"restart_redis","node":"redlock-9"}`, "invalid_field", "node"},
		{"restart node absent here", `{"kind":"restart_redis","node":"redis"}`, "invalid_field", "node"},
		{"restart with ms", `{"kind":"restart_redis","node":"redis","ms":5}`, "invalid_field", "ms"},
		{"restart unknown field", `{"kind":"restart_redis","node":"redis","port":1}`, "unknown_field", "port"},
		{"replica empty", `{"kind":"pause_holder","ms":5,"replica":""}`, "invalid_field", "replica"},
		{"replica number", `{"kind":"pause_holder","ms":5,"replica":7}`, "invalid_field", "replica"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.post("/api/faults", c.body), http.StatusBadRequest, c.code, c.field)
		})
	}
	wantError(t, e.post("/api/faults", `{"kind":"slow_db","ms":5,"sale_id":999999999999}`), http.StatusNotFound, "not_found", "")
	// This env has no ZooKeeper: the strategy cannot be built here.
	wantError(t, e.post("/api/faults", `{"kind":"expire_zk_session"}`), http.StatusServiceUnavailable, "strategy_unavailable", "")
}

// The GC-pause case through the API, as in order's TestPausePastTTL: A's
// section is paused 900 ms past a 300 ms db-lock-table TTL, B takes the
// expired lock and buys. Without fencing A's stale write lands (a lost
// update); with fencing it is rejected (409 fenced) and counted.
func TestFaultPauseHolder(t *testing.T) {
	faultsOn(t)
	e := newEnv(t)
	for _, fencing := range []bool{false, true} {
		v := e.createSale(t, fmt.Sprintf(`{"strategy":"db-lock-table","stock":10,"ttl_ms":300,"fencing":%v}`, fencing))
		// A holds the lock, stalled; B waits for A's lock row to expire
		// (300 ms) and takes the lock while A still sleeps.
		codeA := stalledOrder(t, e, v.ID, "A")
		if rec := e.post(ordersPath(v.ID), `{"user_id":"B"}`); rec.Code != http.StatusCreated {
			t.Fatalf("fencing=%v: B: %d %s", fencing, rec.Code, rec.Body)
		}
		a := <-codeA
		waitPausedHolders(t, e, 0)
		e.srv.orders.Flush()
		var got inventory.SaleView
		mustJSON(t, e.get(fmt.Sprintf("/api/sales/%d", v.ID)), &got)
		t.Logf("fencing=%v: A %d; sold %d stock %d lost %d violations %d fenced %d",
			fencing, a, got.Sold, got.Stock, got.LostUpdates, got.Violations, got.FencedWrites)
		if got.Violations < 1 {
			t.Errorf("fencing=%v: the overlap of A and B was not detected", fencing)
		}
		if !fencing {
			if a != http.StatusCreated || got.Sold != 2 || got.LostUpdates != 1 {
				t.Errorf("without fencing the stale write should land and lose B's update: A %d %+v", a, got.Stats)
			}
			continue
		}
		if a != http.StatusConflict || got.Sold != 1 || got.Stock != 9 || got.LostUpdates != 0 || got.FencedWrites != 1 {
			t.Errorf("with fencing A's stale write must be rejected and counted: A %d %+v stock %d", a, got.Stats, got.Stock)
		}
	}
}

// stalledOrder arms pause_holder (3 s) and sends user's order until that
// order is the holder the pause stalls, and returns the channel its status
// will come on. On a loaded machine the holder's 300 ms lease can lapse
// before it reaches the stall: its lock check then stops it (503 lock_lost,
// nothing written) and the pause is spent; that is the world refusing the
// schedule, not a defect, so the order is sent again (any other early
// answer fails the test).
func stalledOrder(t *testing.T, e *env, saleID uint64, user string) <-chan int {
	t.Helper()
	for attempt := 1; ; attempt++ {
		if rec := e.post("/api/faults", `{"kind":"pause_holder","ms":3000}`); rec.Code != http.StatusAccepted {
			t.Fatalf("inject: %d %s", rec.Code, rec.Body)
		}
		code := make(chan int, 1)
		go func() { code <- e.post(ordersPath(saleID), fmt.Sprintf(`{"user_id":%q}`, user)).Code }()
		early := 0
		testenv.WaitFor(t, 30*time.Second, user+" stalled by pause_holder, or answered", func() bool {
			select {
			case early = <-code:
				return true
			default:
			}
			var got struct {
				PausedHolders *int64 `json:"paused_holders"`
			}
			mustJSON(t, e.get("/api/faults"), &got)
			return got.PausedHolders != nil && *got.PausedHolders == 1
		})
		if early == 0 {
			return code
		}
		if early != http.StatusServiceUnavailable || attempt == 5 {
			t.Fatalf("attempt %d: %s answered %d before any stall, want it stalled (or 503 lock_lost, sent again up to 5 times)", attempt, user, early)
		}
		t.Logf("attempt %d: %s's lease lapsed before its stall (503); sending it again", attempt, user)
	}
}

// waitPausedHolders waits for GET /api/faults to report n holders stalled
// by pause_holder on this replica.
func waitPausedHolders(t *testing.T, e *env, n int64) {
	t.Helper()
	var got struct {
		PausedHolders *int64 `json:"paused_holders"`
	}
	testenv.WaitFor(t, 30*time.Second, fmt.Sprintf("%d holder(s) stalled by pause_holder in GET /api/faults", n), func() bool {
		mustJSON(t, e.get("/api/faults"), &got)
		return got.PausedHolders != nil && *got.PausedHolders == n
	})
}

// slow_db holds the sale row: an order placed meanwhile waits for it.
func TestFaultSlowDB(t *testing.T) {
	faultsOn(t)
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"none","stock":10}`)
	const ms = 800
	if rec := e.post("/api/faults", fmt.Sprintf(`{"kind":"slow_db","ms":%d,"sale_id":%d}`, ms, v.ID)); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	start := time.Now()
	rec := e.post(ordersPath(v.ID), `{"user_id":"u"}`)
	took := time.Since(start)
	if rec.Code != http.StatusCreated {
		t.Fatalf("order: %d %s", rec.Code, rec.Body)
	}
	if took < ms*8/10*time.Millisecond {
		t.Errorf("the order took %v; the row was held for %d ms", took, ms)
	}
}

// zkFaultsEnv is an API over a shop with faults on and this replica's
// zookeeper strategy (replica names it), and that strategy's Locker.
func zkFaultsEnv(t *testing.T, replica string) (*env, lockstrategy.Locker) {
	t.Helper()
	faultsOn(t)
	db := testenv.DB(t, "httpapi")
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(withPoints(lockstrategy.Backends{DB: db, ZKServers: testenv.ZKServers(t)}))
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: replica, Faults: hooksOf(lockers)}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	l, err := lockers.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &env{db: db, store: store, lockers: lockers, srv: newServer(Deps{Store: store, Orders: orders, Lockers: lockers})}, l
}

// expire_zk_session through the API: this replica's zookeeper lease is lost.
func TestFaultExpireZKSession(t *testing.T) {
	e, l := zkFaultsEnv(t, "faults-zk")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lease, err := l.Lock(ctx, "httpapi-faults-zk")
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Unlock(ctx)
	if rec := e.post("/api/faults", `{"kind":"expire_zk_session"}`); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	select {
	case <-lease.Lost():
	case <-time.After(15 * time.Second): // generous liveness bound
		t.Fatal("the lease was not lost after the fault expired its session")
	}
}

// faultsRedisEnv is an API whose strategies and faults use a private Redis (the
// faults under test crash holders on it and restart it).
func faultsRedisEnv(t *testing.T, token string) (*env, string) {
	t.Helper()
	faultsOn(t)
	addr := testenv.PrivateRedis(t, 1)[0]
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	db := testenv.DB(t, "httpapi")
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(withPoints(lockstrategy.Backends{DB: db, Redis: rdb}))
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "faults-redis", LockWait: 5 * time.Second, Faults: hooksOf(lockers)}, store, lockers, nil,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	f := newFaults(faults.Config{Enabled: true, RedisAddr: addr}, orders, lockers, store)
	t.Cleanup(f.Wait)
	t.Cleanup(func() { f.DisarmCrash() })
	return &env{db: db, store: store, lockers: lockers, srv: newServer(Deps{Store: store, Orders: orders, Lockers: lockers,
		AdminToken: token, ReplicaID: "faults-redis", Faults: f})}, addr
}

// crash_after_setnx through an order: the crashed order is a 503
// holder_crashed that wrote nothing; the next one (one-shot) gets the lock
// once the abandoned `redis` lock's TTL has run out. restart_redis then
// restarts the private Redis and says so.
func TestFaultCrashAndRestartRedis(t *testing.T) {
	e, addr := faultsRedisEnv(t, "")
	v := e.createSale(t, `{"strategy":"redis","stock":10,"ttl_ms":300}`)
	rec := e.post("/api/faults", `{"kind":"crash_after_setnx"}`)
	if rec.Code != http.StatusAccepted || !strings.Contains(rec.Body.String(), `"armed":true`) {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	wantError(t, e.post(ordersPath(v.ID), `{"user_id":"crashed"}`), http.StatusServiceUnavailable, "holder_crashed", "")
	if n := e.countOrders(t, v.ID); n != 0 {
		t.Fatalf("the crashed order wrote %d orders", n)
	}
	if rec := e.post(ordersPath(v.ID), `{"user_id":"next"}`); rec.Code != http.StatusCreated {
		t.Fatalf("the order after the crash: %d %s", rec.Code, rec.Body)
	}
	if n := e.countOrders(t, v.ID); n != 1 {
		t.Fatalf("%d orders, want 1", n)
	}

	rec = e.post("/api/faults", `{"kind":"restart_redis","node":"redis"}`)
	var got struct {
		Kind, Node, Addr, Replica string
		Before                    string `json:"run_id_before"`
		After                     string `json:"run_id_after"`
	}
	mustJSON(t, rec, &got)
	if rec.Code != http.StatusAccepted || got.Kind != "restart_redis" || got.Node != "redis" || got.Addr != addr ||
		got.Before == "" || got.After == "" || got.Before == got.After || got.Replica != "faults-redis" {
		t.Fatalf("restart: %d %s", rec.Code, rec.Body)
	}
	var list struct {
		Replica    string   `json:"replica"`
		RedisNodes []string `json:"redis_nodes"`
	}
	mustJSON(t, e.get("/api/faults"), &list)
	if list.Replica != "faults-redis" || len(list.RedisNodes) != 1 || list.RedisNodes[0] != "redis" {
		t.Errorf("GET /api/faults: %+v", list)
	}
}

// The new kinds need the admin token too.
func TestFaultsNewKindsNeedToken(t *testing.T) {
	e, _ := faultsRedisEnv(t, "s3cret")
	for _, body := range []string{`{"kind":"crash_after_setnx"}`, `{"kind":"stop_process","ms":1}`,
		`{"kind":"kill_process","ms":1}`, `{"kind":"restart_redis","node":"redis"}`, `{"kind":"kill_zk_server","ms":1}`, `{"kind":"cut_db","ms":1}`} {
		wantError(t, e.post("/api/faults", body), http.StatusForbidden, "forbidden", "")
	}
	// With the token: the duration is required, and a replica without
	// ZooKeeper has no server to kill.
	wantError(t, e.post("/api/faults", `{"kind":"kill_zk_server"}`, "Authorization: Bearer s3cret"),
		http.StatusBadRequest, "invalid_field", "ms")
	wantError(t, e.post("/api/faults", `{"kind":"kill_zk_server","ms":1000}`, "Authorization: Bearer s3cret"),
		http.StatusServiceUnavailable, "strategy_unavailable", "")
	// A replica whose database connections do not go through a link.
	wantError(t, e.post("/api/faults", `{"kind":"cut_db","ms":1000}`, "Authorization: Bearer s3cret"),
		http.StatusConflict, "no_db_link", "")
	if pointsOf(e.lockers).CrashArmed() {
		t.Fatal("a refused request armed the crash")
	}
	if rec := e.post("/api/faults", `{"kind":"crash_after_setnx"}`, "Authorization: Bearer s3cret"); rec.Code != http.StatusAccepted {
		t.Fatalf("with the token: %d %s", rec.Code, rec.Body)
	}
}

// A fault naming another live replica is forwarded there with the caller's
// token, and its answer relayed; an unknown or dead replica is a 404; this
// replica's own id runs here.
func TestFaultsForward(t *testing.T) {
	faultsOn(t)
	const token = "s3cret"
	auth := "Authorization: Bearer " + token
	run := fmt.Sprintf("%08x", rand.Uint32())
	a := newEnvReplica(t, token, "fwd-a-"+run)
	b := newEnvReplica(t, token, "fwd-b-"+run)
	ts := httptest.NewServer(b.srv)
	t.Cleanup(ts.Close)
	ctx := context.Background()
	for _, m := range []discovery.Member{
		{ID: "fwd-b-" + run, Kind: discovery.KindShop, URL: ts.URL, PID: 2},
		{ID: "fwd-dead-" + run, Kind: discovery.KindShop, URL: ts.URL, PID: 3},
		{ID: "fwd-agent-" + run, Kind: discovery.KindAgent, URL: ts.URL, PID: 4},
	} {
		if err := discovery.Register(ctx, a.db, m); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { discovery.Remove(context.Background(), a.db, m) })
	}
	a.db.Exec("UPDATE replicas SET last_seen = UTC_TIMESTAMP(6) - INTERVAL 20 SECOND WHERE id = ?", "fwd-dead-"+run)
	defer pointsOf(b.lockers).PauseNextSection(0)

	rec := a.post("/api/faults", fmt.Sprintf(`{"kind":"pause_holder","ms":7,"replica":"fwd-b-%s"}`, run), auth)
	var got struct {
		Kind, Replica string
		MS            int64
	}
	mustJSON(t, rec, &got)
	if rec.Code != http.StatusAccepted || got.Kind != "pause_holder" || got.MS != 7 || got.Replica != "fwd-b-"+run {
		t.Fatalf("forwarded: %d %s", rec.Code, rec.Body)
	}
	// B's own validation comes back as is.
	wantError(t, a.post("/api/faults", fmt.Sprintf(`{"kind":"pause_holder","replica":"fwd-b-%s"}`, run), auth),
		http.StatusBadRequest, "invalid_field", "ms")
	// Without the token A refuses before forwarding anything.
	wantError(t, a.post("/api/faults", fmt.Sprintf(`{"kind":"pause_holder","ms":7,"replica":"fwd-b-%s"}`, run)),
		http.StatusForbidden, "forbidden", "")
	for _, id := range []string{"nope-" + run, "fwd-dead-" + run, "fwd-agent-" + run} {
		wantError(t, a.post("/api/faults", fmt.Sprintf(`{"kind":"pause_holder","ms":7,"replica":%q}`, id), auth),
			http.StatusNotFound, "replica_not_found", "replica")
	}
	rec = a.post("/api/faults", fmt.Sprintf(`{"kind":"pause_holder","ms":9,"replica":"fwd-a-%s"}`, run), auth)
	mustJSON(t, rec, &got)
	pointsOf(a.lockers).PauseNextSection(0)
	if rec.Code != http.StatusAccepted || got.Replica != "fwd-a-"+run || got.MS != 9 {
		t.Fatalf("own id: %d %s", rec.Code, rec.Body)
	}
	var list struct{ Replica string }
	mustJSON(t, a.get("/api/faults"), &list)
	if list.Replica != "fwd-a-"+run {
		t.Errorf("GET /api/faults replica %q", list.Replica)
	}
}

// newEnvReplica is newEnv's API with a replica id and a token.
func newEnvReplica(t *testing.T, token, id string) *env {
	t.Helper()
	e := newEnv(t, withToken(token))
	orders := order.NewService(order.Config{ReplicaID: id, Faults: hooksOf(e.lockers)}, e.store, e.lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	e.srv = newServer(Deps{Store: e.store, Orders: orders, Lockers: e.lockers, AdminToken: token, ReplicaID: id})
	return e
}

// getset_release_gap through the API: A's release waits between its GET and
// its DEL (GET /api/faults: getset.held 1) until B takes A's expired lock
// over; A's DEL then deletes B's lock, so B's own release finds no value of
// its own and is refused (getset.refused_releases counts it). Both orders
// are 201: the pitfall costs the lock, not the answer.
func TestFaultGetSetReleaseGap(t *testing.T) {
	e, _ := faultsRedisEnv(t, "")
	v := e.createSale(t, `{"strategy":"redis-getset","stock":10,"ttl_ms":300}`)
	gaps := func() (g struct {
		Held    int64 `json:"held"`
		Refused int64 `json:"refused_releases"`
	}) {
		var body struct {
			GetSet *struct {
				Held    int64 `json:"held"`
				Refused int64 `json:"refused_releases"`
			} `json:"getset"`
		}
		mustJSON(t, e.get("/api/faults"), &body)
		if body.GetSet == nil {
			t.Fatal("GET /api/faults has no getset")
		}
		g.Held, g.Refused = body.GetSet.Held, body.GetSet.Refused
		return g
	}
	before := gaps()
	wantError(t, e.post("/api/faults", `{"kind":"getset_release_gap"}`), http.StatusBadRequest, "invalid_field", "ms")
	if rec := e.post("/api/faults", `{"kind":"getset_release_gap","ms":4000}`); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	codeA := make(chan int, 1)
	go func() { codeA <- e.post(ordersPath(v.ID), `{"user_id":"A"}`).Code }()
	testenv.WaitFor(t, 30*time.Second, "A's release held between its GET and its DEL", func() bool { return gaps().Held == 1 })
	// B, once it has taken A's expired lock over, stays inside its section
	// while A's DEL lands (else B could release first, and A delete nothing).
	if rec := e.post("/api/faults", `{"kind":"pause_holder","ms":3000}`); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	codeB := make(chan int, 1)
	go func() { codeB <- e.post(ordersPath(v.ID), `{"user_id":"B"}`).Code }()
	waitPausedHolders(t, e, 1)
	if a := <-codeA; a != http.StatusCreated {
		t.Fatalf("A: %d", a)
	}
	if b := <-codeB; b != http.StatusCreated {
		t.Fatalf("B: %d", b)
	}
	if after := gaps(); after.Held != 0 || after.Refused-before.Refused != 1 {
		t.Errorf("getset %+v after, %+v before: want no gap held and B's release refused", after, before)
	}
}
