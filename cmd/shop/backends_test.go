package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// A replica started while its Redis was down kept the
// redis strategies unavailable until it was restarted. It must reconnect by
// itself, at start and after any outage, and say how each backend is in
// /healthz and GET /api/strategies.
func TestBackendsReconnect(t *testing.T) {
	dsn := testenv.MySQLDSN(t, "shop")
	rp := testenv.NewRedisProcess(t) // not started: down when the replica starts
	cfg := serveConfig{HTTPAddr: "127.0.0.1:0", MySQLDSN: dsn, LockWait: 5 * time.Second,
		ReplicaID: "shop-reconnect", RedisAddr: rp.Addr}
	base := startServe(t, cfg, nil).base

	// state is what /healthz says of Redis, and whether GET /api/strategies
	// calls the redis strategy available (and the state it gives its need).
	state := func() (health string, available bool, need string) {
		var h struct {
			Backends map[string]struct {
				State string `json:"state"`
			} `json:"backends"`
		}
		getJSON(t, base+"/healthz", &h)
		var list []struct {
			Name      string            `json:"name"`
			Available bool              `json:"available"`
			Backends  map[string]string `json:"backends"`
		}
		getJSON(t, base+"/api/strategies", &list)
		for _, s := range list {
			if s.Name == "redis" {
				available, need = s.Available, s.Backends["redis"]
			}
		}
		return h.Backends["redis"].State, available, need
	}
	waitState := func(want string) {
		t.Helper()
		testenv.WaitFor(t, 30*time.Second, "Redis "+want+" in /healthz and /api/strategies", func() bool {
			h, avail, need := state()
			return h == want && need == want && avail == (want == "up")
		})
	}
	order := func(id uint64, user string) int {
		r, err := http.Post(fmt.Sprintf("%s/api/sales/%d/orders", base, id), "application/json",
			strings.NewReader(`{"user_id":"`+user+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}

	waitState("down")
	rp.Start()
	waitState("up")
	r, err := http.Post(base+"/api/sales", "application/json", strings.NewReader(`{"strategy":"redis","stock":5}`))
	if err != nil || r.StatusCode != http.StatusCreated {
		t.Fatalf("create a redis sale once Redis is up: %v %v", r, err)
	}
	var sale struct{ ID uint64 }
	json.NewDecoder(r.Body).Decode(&sale)
	r.Body.Close()
	if code := order(sale.ID, "u1"); code != http.StatusCreated {
		t.Fatalf("order with Redis up: %d", code)
	}

	rp.Kill() // an outage: the replica must notice, answer 503, and come back
	waitState("down")
	if code := order(sale.ID, "u2"); code != http.StatusServiceUnavailable {
		t.Errorf("order with Redis down: %d, want 503", code)
	}
	rp.Start()
	waitState("up")
	testenv.WaitFor(t, 30*time.Second, "an order served again after Redis came back", func() bool {
		return order(sale.ID, "u3") == http.StatusCreated
	})
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if err := json.NewDecoder(r.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
