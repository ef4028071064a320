package lessons

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// ringAnswer is the part of GET /api/sales/{id}/ring the lesson reads: the
// sale's owner as one replica sees it.
type ringAnswer struct {
	Replica string `json:"replica"`
	Owner   struct {
		ID string `json:"id"`
	} `json:"owner"`
	Owns bool `json:"owns"`
	View struct {
		Epoch      uint64     `json:"epoch"`
		StaleUntil *time.Time `json:"stale_until"`
	} `json:"view"`
}

func (sc *ScenarioRun) ring(ctx context.Context, target string, id uint64) (ringAnswer, error) {
	var r ringAnswer
	_, err := sc.C.CallJSON(ctx, http.MethodGet, fmt.Sprintf("%s/api/sales/%d/ring", target, id), nil, http.StatusOK, &r)
	return r, err
}

// ringOwners is each target's answer, in the targets' order.
func (sc *ScenarioRun) ringOwners(ctx context.Context, id uint64) ([]ringAnswer, error) {
	var out []ringAnswer
	for _, t := range sc.Targets {
		r, err := sc.ring(ctx, t, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// describeRing is "shop-1: shop-1 (stale), shop-2: shop-2": each replica's
// owner as it sees it.
func describeRing(rs []ringAnswer) string {
	var parts []string
	for _, r := range rs {
		s := fmt.Sprintf("%s sees %s", r.Replica, r.Owner.ID)
		if r.View.StaleUntil != nil {
			s += " (view held stale)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// consistentHashingRingChange: a consistent-hash sale is served by its
// owner on the ring. The owner leaves the others' rings for a while
// (stale_ring, as a replica a deploy drains) while its own view stays
// stale; the next replica on the ring takes the sale over within
// hashring.Refresh, and the buyers on both sell: two holders in two
// processes. Unfenced, the database counts lost updates and the detector
// overlaps; fenced, the new owner's newer epoch refuses the old owner's
// writes.
func consistentHashingRingChange(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	set := consistentHashingRingChangeSettings(sc.Pace)
	var parts []string
	pass := true
	for _, fencing := range []bool{false, true} {
		if fencing {
			if err := sc.next(ctx, "the same ring change with fencing on: the new owner's newer epoch refuses the old owner's writes",
				"同样的哈希环变化，开启防护令牌：新拥有者的环纪元更新，旧拥有者的写入被拒"); err != nil {
				return "", false, err
			}
		}
		part, ok, err := sc.ringChange(ctx, fencing, set)
		if err != nil {
			return "", false, err
		}
		pass = pass && ok
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}

// ringChange runs one sale of the lesson, fenced or not.
func (sc *ScenarioRun) ringChange(ctx context.Context, fencing bool, set ringSettings) (string, bool, error) {
	leave := set.Leave
	v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario consistent-hashing-ring-change",
		Strategy: "consistent-hash", Stock: 1000, WorkMS: set.WorkMS, Fencing: fencing})
	if err != nil {
		return "", false, err
	}
	sc.note(v.ID)
	before, err := sc.ringOwners(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	owner := -1
	for i, r := range before {
		if r.Owns {
			owner = i
		}
		if r.Owner.ID != before[0].Owner.ID {
			return "", false, fmt.Errorf("the replicas disagree on the owner before any change: %s", describeRing(before))
		}
	}
	if owner < 0 {
		return "", false, fmt.Errorf("the owner %s is none of the targets (%s): give every replica as a target", before[0].Owner.ID, describeRing(before))
	}
	oldOwner := sc.Targets[owner]
	if k := sc.C.Order(ctx, shopapi.OrdersURL(oldOwner, v.ID), "warm0"); k != shopapi.KindOrder {
		return "", false, fmt.Errorf("warm-up order on the owner %s: %s", oldOwner, k)
	}
	if err := sc.fault(ctx, oldOwner, map[string]any{"kind": "stale_ring", "ms": leave.Milliseconds()}); err != nil {
		return "", false, err
	}
	newOwner, during, err := sc.waitNewOwner(ctx, v.ID, owner)
	if err != nil {
		return "", false, err
	}
	// Buyers on both owners until the old one's view is read again.
	served, refused := sc.buyOnBoth(ctx, v.ID, []string{oldOwner, sc.Targets[newOwner]}, set, time.Now().Add(leave-time.Second))
	if err := waitRingAgrees(ctx, sc, v.ID); err != nil {
		return "", false, err
	}
	got, err := sc.quiescent(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	setting := "fencing off"
	if fencing {
		setting = "fencing on"
	}
	return fmt.Sprintf("consistent-hash, %s: before %s; the moment: %s; %d orders served, %d refused; %s",
		setting, describeRing(before), describeRing(during), served, refused, describe(got)), ringChangeHolds(fencing, got), nil
}

// ringChangeHolds is the verdict of one case, once two owners were seen:
// unfenced, the detector (overlapping sections) and the database (lost
// updates) both show the two holders; fenced, the database refused the old
// owner's writes and lost nothing.
func ringChangeHolds(fencing bool, got shopapi.SaleView) bool {
	if fencing {
		return got.FencedWrites >= 1 && got.LostUpdates == 0 && got.Oversold == 0
	}
	return got.Violations >= 1 && got.LostUpdates >= 1
}

// waitNewOwner waits (10 s at most) until a target other than the old
// owner sees itself as the owner while the old owner still does: the
// moment of two owners. It returns that target and every view then.
func (sc *ScenarioRun) waitNewOwner(ctx context.Context, id uint64, old int) (int, []ringAnswer, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		rs, err := sc.ringOwners(ctx, id)
		if err != nil {
			return 0, nil, err
		}
		for i, r := range rs {
			if i != old && r.Owns && rs[old].Owns {
				return i, rs, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, nil, fmt.Errorf("no second owner appeared after stale_ring: %s", describeRing(rs))
		}
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, nil, err
		}
	}
}

// waitRingAgrees waits (15 s at most) until every target names the same
// owner again and none holds its view stale: the departure is over.
func waitRingAgrees(ctx context.Context, sc *ScenarioRun, id uint64) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		rs, err := sc.ringOwners(ctx, id)
		if err != nil {
			return err
		}
		agree := true
		for _, r := range rs {
			agree = agree && r.Owner.ID == rs[0].Owner.ID && r.View.StaleUntil == nil
		}
		if agree {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the replicas still disagree on the owner: %s", describeRing(rs))
		}
		if err := load.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// buyOnBoth is buyOn at normal pace; with set.Rounds the buyers are sent
// together round after round, a round started only when its work ends
// before until.
func (sc *ScenarioRun) buyOnBoth(ctx context.Context, id uint64, targets []string, set ringSettings, until time.Time) (served, refused int64) {
	if !set.Rounds {
		return sc.buyOn(ctx, id, targets, set.Buyers, until)
	}
	work := time.Duration(set.WorkMS) * time.Millisecond
	for r := 0; ctx.Err() == nil && time.Now().Add(work).Before(until); r++ {
		kinds, _ := sc.burstOn(ctx, id, targets, set.Buyers, fmt.Sprintf("ring%d-", r))
		for k, n := range kinds {
			if k == shopapi.KindOrder {
				served += int64(n)
			} else {
				refused += int64(n)
			}
		}
	}
	return served, refused
}

// buyOn has buyers buyers, spread over targets, order one after the other
// until the deadline; it counts the orders made and the others.
func (sc *ScenarioRun) buyOn(ctx context.Context, id uint64, targets []string, buyers int, until time.Time) (served, refused int64) {
	var ok, no atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < buyers; w++ {
		target := targets[w%len(targets)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(until) && ctx.Err() == nil; i++ {
				if sc.C.Order(ctx, shopapi.OrdersURL(target, id), fmt.Sprintf("ring%d-%d", w, i)) == shopapi.KindOrder {
					ok.Add(1)
				} else {
					no.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return ok.Load(), no.Load()
}
