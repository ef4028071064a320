package failoverlessons

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
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
		Members []struct {
			ID string `json:"id"`
		} `json:"members"`
		Epoch      uint64     `json:"epoch"`
		StaleUntil *time.Time `json:"stale_until"`
	} `json:"view"`
}

func (sc *scenarioRun) ring(ctx context.Context, target string, id uint64) (ringAnswer, error) {
	var r ringAnswer
	_, err := sc.C.CallJSON(ctx, http.MethodGet, fmt.Sprintf("%s/api/sales/%d/ring", target, id), nil, http.StatusOK, &r)
	return r, err
}

// ringOwners is each target's answer, in the targets' order.
func (sc *scenarioRun) ringOwners(ctx context.Context, id uint64) ([]ringAnswer, error) {
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

// describeRing is "shop-1 sees shop-1 (view held stale), shop-2 sees
// shop-2": each replica's owner as it sees it.
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

// strangers are the ring members in the replicas' views that are none of
// the replicas answering: another replica on the same database, which the
// ring could name the next owner.
func strangers(rs []ringAnswer) []string {
	known := map[string]bool{}
	for _, r := range rs {
		known[r.Replica] = true
	}
	var out []string
	for _, r := range rs {
		for _, m := range r.View.Members {
			if !known[m.ID] && !slices.Contains(out, m.ID) {
				out = append(out, m.ID)
			}
		}
	}
	return out
}

// ringTally is one replica's answers to the orders sent to it in one phase
// of a case.
type ringTally struct{ Served, Fenced, NotOwner, Other int64 }

// add counts one answer.
func (t *ringTally) add(kind string) {
	switch kind {
	case shopapi.KindOrder:
		t.Served++
	case "fenced":
		t.Fenced++
	case "not_owner":
		t.NotOwner++
	default:
		t.Other++
	}
}

func (t ringTally) String() string {
	s := fmt.Sprintf("%d served", t.Served)
	for _, n := range []struct {
		n    int64
		what string
	}{{t.Fenced, "fenced"}, {t.NotOwner, "not_owner"}, {t.Other, "other"}} {
		if n.n > 0 {
			s += fmt.Sprintf(", %d %s", n.n, n.what)
		}
	}
	return s
}

// ringCase is what one case of the lesson saw, which its verdict reads.
type ringCase struct {
	Fencing bool
	// The answers to the orders sent on the old owner and on the new one
	// while the old one was out of the ring (Leave) and once the join was
	// seen (Join).
	LeaveOld, LeaveNew, JoinOld, JoinNew ringTally
	// Joined: while the buyers still bought, every replica named the old
	// owner again and none held its view stale: the old owner rejoined.
	Joined bool
	Got    shopapi.SaleView
}

// ringChangeHolds is the verdict of one case, once two owners were seen.
// Both ways: each owner sold while the old one was out of the ring, the
// join was seen while the buyers bought, and the rejoined owner served
// orders after it (the key moved back and the sale went on). Unfenced, the
// detector (overlapping sections) and the database (lost updates) both
// show the two holders; fenced, the database refused the old owner's
// writes while it was out and lost nothing.
func ringChangeHolds(c ringCase) bool {
	if c.LeaveOld.Served+c.LeaveOld.Fenced < 1 || c.LeaveNew.Served < 1 || !c.Joined || c.JoinOld.Served < 1 {
		return false
	}
	if c.Fencing {
		return c.LeaveOld.Fenced >= 1 && c.Got.FencedWrites >= 1 && c.Got.LostUpdates == 0 && c.Got.Oversold == 0
	}
	return c.LeaveOld.Served >= 1 && c.Got.Violations >= 1 && c.Got.LostUpdates >= 1
}

// consistentHashingRingChange: a consistent-hash sale is served by its
// owner on the ring. The owner leaves the others' rings for a while
// (stale_ring, as a replica a deploy drains) while its own view stays
// stale; the next replica on the ring takes the sale over within
// hashring.Refresh, and the buyers on both sell: two holders in two
// processes. Then the old owner rejoins while the buyers still buy: the
// key moves back to it. Unfenced, the database counts lost updates and
// the detector overlaps; fenced, the new owner's newer epoch refuses the
// old owner's writes, and once the old owner is back its view, newer
// again, lets it sell.
func consistentHashingRingChange(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	set := consistentHashingRingChangeSettings(sc.Pace)
	var parts []string
	pass := true
	for _, fencing := range []bool{false, true} {
		if fencing {
			if err := sc.Next(ctx, "the same ring change with fencing on: the new owner's newer epoch refuses the old owner's writes, then the old owner rejoins",
				"同样的哈希环变化，开启防护令牌：新拥有者的环纪元更新，旧拥有者的写入被拒；随后旧拥有者重新加入"); err != nil {
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
func (sc *scenarioRun) ringChange(ctx context.Context, fencing bool, set ringSettings) (string, bool, error) {
	v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario consistent-hashing-ring-change",
		Strategy: "consistent-hash", Stock: 1000, WorkMS: set.WorkMS, Fencing: fencing})
	if err != nil {
		return "", false, err
	}
	sc.Note(v.ID)
	before, err := sc.ringOwners(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	if extra := strangers(before); len(extra) > 0 {
		return "", false, fmt.Errorf("the ring has replicas that are no targets (%s): give every replica as a target, or stop the others on this database",
			strings.Join(extra, ", "))
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
	if err := sc.Fault(ctx, oldOwner, map[string]any{"kind": faultkind.StaleRing, "ms": set.Leave.Milliseconds()}); err != nil {
		return "", false, err
	}
	// The join is looked for until 15 s past the departure's end.
	giveUp := time.Now().Add(set.Leave + 15*time.Second)
	newOwner, during, err := sc.waitNewOwner(ctx, v.ID, owner)
	if err != nil {
		return "", false, err
	}
	j := &ringJoin{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc.watchJoin(ctx, v.ID, owner, giveUp, j)
	}()
	c := ringCase{Fencing: fencing}
	sc.buyAcrossJoin(ctx, v.ID, oldOwner, sc.Targets[newOwner], set, j, &c)
	wg.Wait()
	c.Joined = j.at.Load() != nil
	got, err := sc.Quiescent(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	c.Got = got
	setting := "fencing off"
	if fencing {
		setting = "fencing on"
	}
	join := "the join: not seen within 15 s of the departure's end: " + j.describe()
	if c.Joined {
		join = "the join: " + j.describe()
	}
	return fmt.Sprintf("consistent-hash, %s: before %s; the moment: %s; until the join was seen: on the old owner %s, on the new owner %s; "+
		"%s; after it: on the old owner %s, on the new owner %s; epochs: %s; %s",
		setting, describeRing(before), describeRing(during), c.LeaveOld, c.LeaveNew, join, c.JoinOld, c.JoinNew,
		describeEpochs(during[owner].View.Epoch, during[newOwner].View.Epoch, j.rejoinEpoch(owner)), lessons.Describe(got)), ringChangeHolds(c), nil
}

// describeEpochs says how the three views' epochs (each the milliseconds
// of its replica's clock at the view's change) stand: the new owner's
// against the one the old owner held stale, the rejoined owner's against
// the new owner's. Fencing needs both differences positive.
func describeEpochs(held, newer, rejoined uint64) string {
	s := fmt.Sprintf("the new owner's view %+d ms on the one the old owner held", int64(newer-held))
	if rejoined != 0 {
		s += fmt.Sprintf(", the rejoined owner's %+d ms on the new owner's", int64(rejoined-newer))
	}
	return s
}

// ringJoin is what watchJoin saw: the first answers after the old owner's
// view stopped being held stale, the answers when every replica named the
// old owner again, and when that was.
type ringJoin struct {
	mu      sync.Mutex
	first   []ringAnswer
	agreed  []ringAnswer
	last    []ringAnswer
	lastErr error
	at      atomic.Pointer[time.Time]
	done    atomic.Bool // watchJoin gave up or saw the join
}

func (j *ringJoin) describe() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.agreed == nil && j.last == nil:
		return fmt.Sprintf("no answer (%v)", j.lastErr)
	case j.agreed == nil:
		return describeRing(j.last)
	case j.first != nil && describeRing(j.first) != describeRing(j.agreed):
		return describeRing(j.first) + ", then " + describeRing(j.agreed)
	}
	return describeRing(j.agreed)
}

// rejoinEpoch is the old owner's view's epoch once the join was seen, 0
// if it was not.
func (j *ringJoin) rejoinEpoch(owner int) uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.agreed == nil {
		return 0
	}
	return j.agreed[owner].View.Epoch
}

// watchJoin asks every replica for the sale's owner every 100 ms until
// all name the old owner (at index owner) and none holds its view stale:
// the old owner is back in the ring, in every view. It gives up at giveUp.
func (sc *scenarioRun) watchJoin(ctx context.Context, id uint64, owner int, giveUp time.Time, j *ringJoin) {
	defer j.done.Store(true)
	for ctx.Err() == nil && time.Now().Before(giveUp) {
		rs, err := sc.ringOwners(ctx, id)
		j.mu.Lock()
		if err != nil {
			j.lastErr = err
		} else {
			j.last = rs
			if j.first == nil && rs[owner].View.StaleUntil == nil {
				j.first = rs
			}
			agree := true
			for _, r := range rs {
				agree = agree && r.Owner.ID == rs[owner].Replica && r.View.StaleUntil == nil
			}
			if agree {
				j.agreed = rs
				now := time.Now()
				j.at.Store(&now)
				j.mu.Unlock()
				return
			}
		}
		j.mu.Unlock()
		if load.Sleep(ctx, 100*time.Millisecond) != nil {
			return
		}
	}
}

// waitNewOwner waits (10 s at most) until a target other than the old
// owner sees itself as the owner while the old owner still does: the
// moment of two owners. It returns that target and every view then.
func (sc *scenarioRun) waitNewOwner(ctx context.Context, id uint64, old int) (int, []ringAnswer, error) {
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

// buyAcrossJoin has set.Buyers buyers, half on the old owner and half on
// the new, order until set.After past the join (or until watchJoin gives
// up), each answer counted in c by the replica it was sent to and by
// whether the join had been seen when it was sent. At normal pace each
// buyer orders again as soon as it is answered; with set.Rounds the
// buyers are sent together, round after round.
func (sc *scenarioRun) buyAcrossJoin(ctx context.Context, id uint64, oldOwner, newOwner string, set ringSettings, j *ringJoin, c *ringCase) {
	var mu sync.Mutex
	stop := func() bool {
		at := j.at.Load()
		return ctx.Err() != nil || (at != nil && time.Since(*at) >= set.After) || (at == nil && j.done.Load())
	}
	order := func(target, user string) {
		joined := j.at.Load() != nil
		k := sc.C.Order(ctx, shopapi.OrdersURL(target, id), user)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case target == oldOwner && joined:
			c.JoinOld.add(k)
		case target == oldOwner:
			c.LeaveOld.add(k)
		case joined:
			c.JoinNew.add(k)
		default:
			c.LeaveNew.add(k)
		}
	}
	targets := []string{oldOwner, newOwner}
	var wg sync.WaitGroup
	if set.Rounds {
		for r := 0; !stop(); r++ {
			for w := 0; w < set.Buyers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					order(targets[w%2], fmt.Sprintf("ring%d-%d", r, w))
				}()
			}
			wg.Wait()
		}
		return
	}
	for w := 0; w < set.Buyers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop(); i++ {
				order(targets[w%2], fmt.Sprintf("ring%d-%d", w, i))
			}
		}()
	}
	wg.Wait()
}
