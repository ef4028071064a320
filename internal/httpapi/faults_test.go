package httpapi

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
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
	if rec.Code != http.StatusOK || list.Enabled || len(list.Kinds) != 3 || list.Kinds[0].Kind != "pause_holder" || list.Kinds[0].Description == "" {
		t.Errorf("GET /api/faults: %d %s", rec.Code, rec.Body)
	}
}

// With a token set, injecting a fault needs it: 401 without, 202 with.
func TestFaultsNeedToken(t *testing.T) {
	faultsOn(t)
	e := newEnv(t, withToken("s3cret"))
	body := `{"kind":"pause_holder","ms":1}`
	wantError(t, e.post("/api/faults", body), http.StatusUnauthorized, "unauthorized", "")
	wantError(t, e.post("/api/faults", body, "Authorization: Bearer wrong"), http.StatusUnauthorized, "unauthorized", "")
	if rec := e.post("/api/faults", body, "Authorization: Bearer s3cret"); rec.Code != http.StatusAccepted {
		t.Fatalf("with the token: %d %s", rec.Code, rec.Body)
	}
	e.srv.orders.PauseNextSection(0) // leave no pause armed
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
		if rec := e.post("/api/faults", `{"kind":"pause_holder","ms":900}`); rec.Code != http.StatusAccepted {
			t.Fatalf("inject: %d %s", rec.Code, rec.Body)
		}
		codeA := make(chan int, 1)
		go func() { codeA <- e.post(ordersPath(v.ID), `{"user_id":"A"}`).Code }()
		time.Sleep(450 * time.Millisecond) // A holds, then its lock row expires
		if rec := e.post(ordersPath(v.ID), `{"user_id":"B"}`); rec.Code != http.StatusCreated {
			t.Fatalf("fencing=%v: B: %d %s", fencing, rec.Code, rec.Body)
		}
		a := <-codeA
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

// expire_zk_session through the API: this replica's zookeeper lease is lost.
func TestFaultExpireZKSession(t *testing.T) {
	faultsOn(t)
	db := testenv.DB(t, "httpapi")
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{DB: db, ZKServers: testenv.ZKServers(t)})
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "faults-zk"}, store, lockers, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	e := &env{db: db, store: store, lockers: lockers, srv: New(Deps{Store: store, Orders: orders, Lockers: lockers})}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := lockers.Get("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
