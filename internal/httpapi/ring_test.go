package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/hashring"
	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/order"
)

// A consistent-hash sale through a replica on a ring with one other:
// GET /ring names the owner as this replica sees it; an order there is
// served by the owner and refused elsewhere with 409 not_owner naming the
// same owner (retryable). Sales are created until both cases occurred.
func TestRingAndNotOwner(t *testing.T) {
	e := newEnv(t)
	other := hashring.Member{ID: "ring-other", URL: "http://127.0.0.1:1"}
	self := hashring.Member{ID: "ring-self", URL: "http://127.0.0.1:2"}
	ring := hashring.NewMembership(e.db, func(context.Context) ([]hashring.Member, error) {
		return []hashring.Member{other, self}, nil
	})
	ring.SetSelf(self)
	lockers := lockstrategy.NewInstances(withPoints(lockstrategy.Backends{DB: e.db, Ring: ring}))
	t.Cleanup(func() { lockers.Close() })
	orders := order.NewService(order.Config{ReplicaID: self.ID, LockWait: 5 * time.Second, Faults: hooksOf(lockers)}, e.store, lockers, e.metrics, slog.New(slog.DiscardHandler))
	e.srv = newServer(Deps{Store: e.store, Orders: orders, Lockers: lockers, Metrics: e.metrics, Ring: ring, Log: slog.New(slog.DiscardHandler)})

	served, refused := false, false
	for i := 0; i < 40 && !(served && refused); i++ {
		sale := e.createSale(t, `{"strategy":"consistent-hash","stock":5}`)
		var rv ringView
		rec := e.get(fmt.Sprintf("/api/sales/%d/ring", sale.ID))
		if rec.Code != http.StatusOK {
			t.Fatalf("ring: %d %s", rec.Code, rec.Body)
		}
		mustJSON(t, rec, &rv)
		if rv.Replica != self.ID || rv.Owns != (rv.Owner.ID == self.ID) || rv.View.Epoch == 0 || len(rv.View.Members) != 2 {
			t.Fatalf("ring view %s", rec.Body)
		}
		rec = e.post(fmt.Sprintf("/api/sales/%d/orders", sale.ID), `{"user_id":"ring-buyer"}`)
		var body wire.Body
		switch {
		case rv.Owns:
			if rec.Code != http.StatusCreated {
				t.Fatalf("the owner refused: %d %s", rec.Code, rec.Body)
			}
			served = true
		default:
			mustJSON(t, rec, &body)
			if rec.Code != http.StatusConflict || body.Error != "not_owner" || !body.Retryable || body.Owner != rv.Owner.ID || body.OwnerURL != rv.Owner.URL {
				t.Fatalf("a non-owner answered %d %s; want 409 not_owner naming %s", rec.Code, rec.Body, rv.Owner.ID)
			}
			refused = true
		}
	}
	if !served || !refused {
		t.Fatalf("served %v, refused %v after 40 sales", served, refused)
	}
	if rec := e.get("/api/sales/999999999/ring"); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown sale: %d", rec.Code)
	}
}
