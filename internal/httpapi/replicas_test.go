package httpapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/discovery"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// GET /api/replicas lists live members (alive), those gone within the last
// minute (alive=false), and not the ones gone for longer; the times are the
// database's, with an age on the same clock.
func TestReplicas(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	run := fmt.Sprintf("%08x", rand.Uint32()) // ids no other run shares
	live := discovery.Member{ID: "t-shop-" + run, Kind: discovery.KindShop, URL: "http://127.0.0.1:8080", PID: 11}
	agent := discovery.Member{ID: "t-agent-" + run, Kind: discovery.KindAgent, PID: 12}
	gone := discovery.Member{ID: "t-gone-" + run, Kind: discovery.KindShop, URL: "http://127.0.0.1:8081", PID: 13}
	old := discovery.Member{ID: "t-old-" + run, Kind: discovery.KindShop, URL: "http://127.0.0.1:8082", PID: 14}
	for _, m := range []discovery.Member{live, agent, gone, old} {
		if err := discovery.Register(ctx, e.db, m); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { discovery.Remove(context.Background(), e.db, m) })
	}
	// What a killed process leaves: a row whose heartbeats stopped 20 s
	// (gone, still shown) and 2 min (forgotten) ago.
	e.db.Exec("UPDATE replicas SET last_seen = UTC_TIMESTAMP(6) - INTERVAL 20 SECOND WHERE id = ?", gone.ID)
	e.db.Exec("UPDATE replicas SET last_seen = UTC_TIMESTAMP(6) - INTERVAL 2 MINUTE WHERE id = ?", old.ID)

	rec := e.get("/api/replicas")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	for _, field := range []string{`"id"`, `"kind"`, `"url"`, `"pid"`, `"started_at"`, `"last_seen"`, `"alive"`} {
		if !strings.Contains(rec.Body.String(), field) {
			t.Errorf("no %s in %s", field, rec.Body)
		}
	}
	var views []replicaView
	mustJSON(t, rec, &views)
	got := map[string]replicaView{}
	order := []string{}
	for _, v := range views {
		if strings.HasSuffix(v.ID, run) {
			got[v.ID] = v
			order = append(order, v.ID)
		}
	}
	if v, ok := got[live.ID]; !ok || !v.Alive || v.Kind != "shop" || v.URL != live.URL || v.PID != 11 ||
		v.AgeMS < 0 || v.AgeMS > 5000 || v.StartedAt.IsZero() || v.LastSeen.Before(v.StartedAt) {
		t.Errorf("live shop: %+v (listed %v)", v, ok)
	}
	if v, ok := got[agent.ID]; !ok || !v.Alive || v.Kind != "agent" {
		t.Errorf("live agent: %+v (listed %v)", v, ok)
	}
	if v, ok := got[gone.ID]; !ok || v.Alive || v.AgeMS < 19000 || v.AgeMS > 30000 {
		t.Errorf("gone 20 s ago should be listed, not alive: %+v (listed %v)", v, ok)
	}
	if _, ok := got[old.ID]; ok {
		t.Error("gone 2 min ago is still listed")
	}
	want := []string{gone.ID, live.ID, agent.ID} // shops first, by id
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("order %v, want %v", order, want)
	}
}

// A database that fails is a 503 db_unavailable whose cause is logged,
// never shown.
func TestReplicasDatabaseDown(t *testing.T) {
	db, err := inventory.Open(context.Background(), inventory.Config{DSN: testenv.MySQLDSN(t, "httpapi")})
	if err != nil {
		t.Fatal(err)
	}
	inventory.Close(db)
	e := newEnv(t, func(c *envConfig) { c.db = db })
	rec := e.get("/api/replicas")
	wantError(t, rec, http.StatusServiceUnavailable, "db_unavailable", "")
	if strings.Contains(rec.Body.String(), "sql") {
		t.Fatalf("leaks: %s", rec.Body)
	}
	if !strings.Contains(e.logs.String(), "database is closed") {
		t.Fatalf("the real error is not logged: %s", e.logs)
	}
}
