package leaselessons

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// replySide is what one side of acquire-reply-lost showed.
type replySide struct {
	strategy string
	ttl      time.Duration // the sale's TTL
	// dropped: replies the first replica's drop_reply hook dropped while
	// buyer-1's order ran (GET /api/faults replies_dropped, read before the
	// order and after its answer; nothing else ran a lock script there).
	dropped int64
	a, b    string // buyer-1's and buyer-2's answers
	// aTook: buyer-1's order, sent to its answer; bWaited: buyer-2's, sent
	// after buyer-1's answer.
	aTook, bWaited time.Duration
	view           shopapi.SaleView
}

func (s replySide) String() string {
	return fmt.Sprintf("%s (ttl %d ms): %d acquire reply dropped; buyer-1 %s after %d ms; buyer-2 %s after %d ms; %s",
		s.strategy, s.ttl.Milliseconds(), s.dropped, s.a, s.aTook.Milliseconds(), s.b, s.bWaited.Milliseconds(), lessons.Describe(s.view))
}

// acquireReplyLostHolds is the lesson's verdict: on both sides the hook
// dropped buyer-1's acquire reply (one drop counted during its order, else
// the lesson saw nothing). Our redisson model gave up on it (buyer-1
// backend_down, the lost reply's transport error) and the lock it had
// taken kept buyer-2 out for at least half the TTL (an orphan held to its
// TTL; a generous bound, buyer-2 is sent just after). redis bought with the
// lock its lost reply took: buyer-1 order within the TTL (waiting its own
// lock out would take the TTL), then buyer-2. Nothing oversold, lost or
// overlapped on either side. why names the first condition that failed.
func acquireReplyLostHolds(gaveUp, checked replySide) (ok bool, why string) {
	for _, s := range []replySide{gaveUp, checked} {
		if s.dropped != 1 {
			return false, fmt.Sprintf("%s: %d replies dropped during buyer-1's order, want 1", s.strategy, s.dropped)
		}
	}
	switch {
	case gaveUp.a != "backend_down":
		return false, fmt.Sprintf("%s: buyer-1 answered %s, not backend_down (giving up on the lost reply)", gaveUp.strategy, gaveUp.a)
	case gaveUp.b != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-2 answered %s", gaveUp.strategy, gaveUp.b)
	case gaveUp.bWaited < gaveUp.ttl/2:
		return false, fmt.Sprintf("%s: buyer-2 waited %d ms, under half the TTL: no orphaned lock held it", gaveUp.strategy,
			gaveUp.bWaited.Milliseconds())
	case checked.a != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-1 answered %s after its lost reply", checked.strategy, checked.a)
	case checked.aTook >= checked.ttl:
		return false, fmt.Sprintf("%s: buyer-1 bought after %d ms, the TTL: it waited its own lock out", checked.strategy,
			checked.aTook.Milliseconds())
	case checked.b != shopapi.KindOrder:
		return false, fmt.Sprintf("%s: buyer-2 answered %s", checked.strategy, checked.b)
	}
	for _, s := range []replySide{gaveUp, checked} {
		if s.view.Oversold != 0 || s.view.LostUpdates != 0 || s.view.Violations != 0 {
			return false, s.strategy + " oversold, lost an update or overlapped"
		}
	}
	return true, ""
}

// repliesDropped is target's GET /api/faults replies_dropped.
func (sc *scenarioRun) repliesDropped(ctx context.Context, target string) (int64, error) {
	var out struct {
		RepliesDropped *int64 `json:"replies_dropped"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults", nil, http.StatusOK, &out); err != nil {
		return 0, err
	}
	if out.RepliesDropped == nil {
		return 0, fmt.Errorf("%s: GET /api/faults has no replies_dropped (an older shop?)", target)
	}
	return *out.RepliesDropped, nil
}

// acquireReplyLost: a lock acquire retried after its reply was lost. The
// first replica's next lock script on the sale runs on Redis but its reply
// is lost (drop_reply; the replica counts the drop): the lock is taken, and
// the buyer does not know. Our redisson model gives up on the error: A
// fails, and its orphaned lock keeps B waiting until the TTL (3 s). redis
// asks Redis again whether the lock is its own before anything else
// (requeue: its id holds it), so A buys at once, and B after it.
func acquireReplyLost(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	const ttl = 3 * time.Second
	t1 := sc.Targets[0]
	var sides []replySide
	for _, strategy := range []string{"redisson", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario acquire-reply-lost",
			Strategy: strategy, Stock: 10, TTLMS: int(ttl.Milliseconds())})
		if err != nil {
			return "", false, err
		}
		if err := sc.Warm(ctx, v.ID, t1, sc.Last()); err != nil {
			return "", false, err
		}
		before, err := sc.repliesDropped(ctx, t1)
		if err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.DropReply, "sale_id": v.ID}); err != nil {
			return "", false, err
		}
		s := replySide{strategy: strategy, ttl: ttl}
		start := time.Now()
		s.a = sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-1")
		s.aTook = time.Since(start)
		after, err := sc.repliesDropped(ctx, t1)
		if err != nil {
			return "", false, err
		}
		s.dropped = after - before
		start = time.Now()
		s.b = sc.C.Order(ctx, shopapi.OrdersURL(sc.Last(), v.ID), "buyer-2")
		s.bWaited = time.Since(start)
		if s.view, err = sc.Settled(ctx, v.ID); err != nil {
			return "", false, err
		}
		sides = append(sides, s)
	}
	ok, why := acquireReplyLostHolds(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}
