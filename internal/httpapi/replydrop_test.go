package httpapi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// drop_reply through the API: GET /api/faults counts the replies the hook
// has dropped (replies_dropped), 0 while the fault is only armed, 1 once
// the next lock script on the sale has run and lost its reply; the `redis`
// order whose acquire it was still buys (it finds its own id).
func TestFaultDropReplyCounted(t *testing.T) {
	e, drop := faultsReplyDropEnv(t)
	v := e.createSale(t, `{"strategy":"redis","stock":10}`)
	dropped := func() int64 {
		var got struct {
			RepliesDropped *int64 `json:"replies_dropped"`
		}
		mustJSON(t, e.get("/api/faults"), &got)
		if got.RepliesDropped == nil {
			t.Fatal("GET /api/faults has no replies_dropped")
		}
		return *got.RepliesDropped
	}
	if rec := e.post("/api/faults", fmt.Sprintf(`{"kind":"drop_reply","sale_id":%d}`, v.ID)); rec.Code != http.StatusAccepted {
		t.Fatalf("inject: %d %s", rec.Code, rec.Body)
	}
	if n := dropped(); n != 0 {
		t.Fatalf("armed, no script yet: replies_dropped %d, want 0", n)
	}
	if rec := e.post(ordersPath(v.ID), `{"user_id":"A"}`); rec.Code != http.StatusCreated {
		t.Fatalf("the order whose acquire reply was lost: %d %s", rec.Code, rec.Body)
	}
	if n, hook := dropped(), drop.Dropped(); n != 1 || hook != 1 {
		t.Fatalf("replies_dropped %d (the hook's count %d), want 1", n, hook)
	}
}

// faultsReplyDropEnv is faultsRedisEnv with the drop_reply hook on its
// Redis, as cmd/shop wires it.
func faultsReplyDropEnv(t *testing.T) (*env, *faultpoint.ReplyDropper) {
	t.Helper()
	faultsOn(t)
	addr := testenv.PrivateRedis(t, 1)[0]
	drop := &faultpoint.ReplyDropper{}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	rdb.AddHook(drop)
	t.Cleanup(func() { rdb.Close() })
	db := testenv.DB(t, "httpapi")
	store := inventory.NewStore(db)
	lockers := lockstrategy.NewInstances(withPoints(lockstrategy.Backends{DB: db, Redis: rdb}))
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: "faults-drop", LockWait: 5 * time.Second, Faults: hooksOf(lockers)}, store, lockers, nil,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(orders.Close)
	f := newFaults(faults.Config{Enabled: true, RedisAddr: addr, ReplyDrop: drop}, orders, lockers, store)
	t.Cleanup(f.Wait)
	return &env{db: db, store: store, lockers: lockers, srv: newServer(Deps{Store: store, Orders: orders, Lockers: lockers,
		ReplicaID: "faults-drop", Faults: f})}, drop
}
