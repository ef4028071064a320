package lessons

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// LeaseEvent is one lease event of GET /api/sales/{id}/timeline: a lease
// as its client saw it (granted, renewed, lost, expired, released, ...),
// and went_on, recorded by a holder that wrote past its lease's loss.
type LeaseEvent struct {
	Replica string  `json:"replica"`
	Token   uint64  `json:"token"`
	Event   string  `json:"event"`
	At      float64 `json:"at"` // ms since the epoch
}

// LossTrail is what the lease events show of the first lease a replica
// lost in a sale.
type LossTrail struct {
	// Lost: a lease of the replica was declared lost (event lost: a
	// renewal failed).
	Lost bool
	// SinceRenewal is the time from that lease's last grant or renewal to
	// its loss; 0 where neither is recorded (redlock records only its end).
	SinceRenewal time.Duration
	// WentOn: its holder wrote past the loss (went_on, on the same token,
	// after lost): the aggressive policy, by choice.
	WentOn bool
}

// lossOf reads the first loss of a lease of replica in events.
func lossOf(events []LeaseEvent, replica string) LossTrail {
	var lost *LeaseEvent
	for i, e := range events {
		if e.Replica == replica && e.Event == "lost" && (lost == nil || e.At < lost.At) {
			lost = &events[i]
		}
	}
	if lost == nil {
		return LossTrail{}
	}
	t := LossTrail{Lost: true}
	last := -1.0
	for _, e := range events {
		if e.Replica != replica || e.Token != lost.Token {
			continue
		}
		switch {
		case (e.Event == "granted" || e.Event == "renewed") && e.At <= lost.At && e.At > last:
			last = e.At
		case e.Event == "went_on" && e.At >= lost.At:
			t.WentOn = true
		}
	}
	if last >= 0 {
		t.SinceRenewal = time.Duration((lost.At - last) * float64(time.Millisecond))
	}
	return t
}

// LossTrail reads sale id's lease events from target until done says the
// trail is complete (events are written in the background, within 100 ms
// of happening) or 10 s have passed, and returns replica's loss. The
// window ends a minute from now: by default a timeline ends at the last
// recorded exit, before the events of a holder still inside.
func (sc *ScenarioRun) LossTrail(ctx context.Context, target string, id uint64, replica string, done func(LossTrail) bool) (LossTrail, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		url := fmt.Sprintf("%s/api/sales/%d/timeline?to=%d", target, id, time.Now().Add(time.Minute).UnixMilli())
		var tl struct {
			Leases []LeaseEvent `json:"leases"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &tl); err != nil {
			return LossTrail{}, err
		}
		t := lossOf(tl.Leases, replica)
		if done(t) || time.Now().After(deadline) {
			return t, nil
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return t, err
		}
	}
}

// LostSeen: the trail has its loss.
func LostSeen(t LossTrail) bool { return t.Lost }

// BesideStep is the business step (slow_work) of a buyer sent beside a
// holder (enterBeside), so that it is seen inside beside it.
const BesideStep = time.Second

// EnterBeside sends user's order to target with a business step of step
// (slow_work, before its lock check) and returns once the order is seen
// inside that step, holding the lock; together says another holder was
// still inside its own step on beside at that moment. Answers that come
// before, from a backend not back yet (backend_down, no answer), are
// retried for 20 s; any other is returned as early (and the order is
// over).
func (sc *ScenarioRun) EnterBeside(ctx context.Context, target, beside string, id uint64, user string, step time.Duration) (answer <-chan string, early string, together bool, err error) {
	if err := sc.Fault(ctx, target, map[string]any{"kind": faultkind.SlowWork, "ms": step.Milliseconds()}); err != nil {
		return nil, "", false, err
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		answer = sc.OrderAsync(ctx, target, id, user)
		early, err = sc.WaitPausedOr(ctx, target, answer)
		switch {
		case err != nil:
			return nil, "", false, err
		case early == "":
			n, err := sc.PausedHolders(ctx, beside)
			return answer, "", err == nil && n > 0, err
		case (early != "backend_down" && early != shopapi.KindTransport) || time.Now().After(deadline):
			return nil, early, false, nil
		}
		// Refused before the lock: the armed slow_work waits for the next
		// section on target.
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return nil, "", false, err
		}
	}
}

// FaultResult is POST target/api/faults with its answer (what the fault
// did).
func (sc *ScenarioRun) FaultResult(ctx context.Context, target string, body map[string]any) (map[string]any, error) {
	var out map[string]any
	_, err := sc.C.CallJSON(ctx, http.MethodPost, target+"/api/faults", body, http.StatusAccepted, &out)
	return out, err
}

// ResultInt is the whole number member name of a fault's answer.
func ResultInt(res map[string]any, name string) (int, error) {
	v, ok := res[name].(float64)
	if !ok {
		return 0, fmt.Errorf("the fault's answer has no number %q: %v", name, res)
	}
	return int(v), nil
}
