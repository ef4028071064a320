package leaselessons

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The scenarios of the fault issue: each drives POST /api/faults on a
// replica while a buyer holds a lock, then reads the database's verdict.

// setnxExpireCrash: the holder crashes right after taking the
// lock (crash_after_setnx). redis-setnx-expire has not set the TTL yet: the
// key stays forever and a buyer 3 TTLs later waits out the shop's lock wait
// and times out. redis took lock and TTL in one SET NX PX, so the same
// crash costs one TTL.
func setnxExpireCrash(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	const ttl = 500 * time.Millisecond
	target := sc.Targets[0]
	var parts []string
	pass := true
	for _, strategy := range []string{"redis-setnx-expire", "redis"} {
		v, _, err := sc.C.CreateSale(ctx, target, shopapi.SaleRequest{Name: "scenario setnx-expire-crash",
			Strategy: strategy, Stock: 5, TTLMS: int(ttl.Milliseconds())})
		if err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, target, map[string]any{"kind": faultkind.CrashAfterSetNX}); err != nil {
			return "", false, err
		}
		s := setnxSide{strategy: strategy}
		s.a = sc.C.Order(ctx, shopapi.OrdersURL(target, v.ID), "buyer-1")
		if err := load.Sleep(ctx, 3*ttl); err != nil {
			return "", false, err
		}
		start := time.Now()
		s.b = sc.C.Order(ctx, shopapi.OrdersURL(target, v.ID), "buyer-2")
		s.took = time.Since(start)
		if s.got, err = sc.Settled(ctx, v.ID); err != nil {
			return "", false, err
		}
		ok, why := s.holds()
		pass = pass && ok
		part := fmt.Sprintf("%s: buyer-1 %s; buyer-2 %s after %d ms (%v after the crash); %s",
			strategy, s.a, s.b, s.took.Milliseconds(), 3*ttl, lessons.Describe(s.got))
		if !ok {
			part += " (FAIL: " + why + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}

// setnxMinWait is the least buyer-2 must have waited before its
// lock_timeout on redis-setnx-expire: it waited out the shop's lock wait
// (10 s by default, 7 s in the loadtest's replicas; the API does not say
// it), and 3 s is well under half of either. It is also 6 TTLs: a key
// with its 500 ms TTL would have expired many times over, so a wait this
// long that still ends in lock_timeout is the key without a TTL, where a
// quick lock_timeout would be a failure for another reason.
const setnxMinWait = 3 * time.Second

// setnxSide is one strategy's case of setnx-expire-crash: both buyers'
// answers, how long buyer-2 waited for its own, and the sale.
type setnxSide struct {
	strategy string
	a, b     string
	took     time.Duration
	got      shopapi.SaleView
}

// holds: on redis-setnx-expire buyer-1 crashed, buyer-2 waited out the lock
// wait (setnxMinWait at least) and timed out, nothing sold; on redis the
// key expired and buyer-2 bought (sold 1, oversold 0).
func (s setnxSide) holds() (bool, string) {
	switch {
	case s.a != "holder_crashed":
		return false, fmt.Sprintf("buyer-1 answered %s, not holder_crashed: the crash fault did not fire", s.a)
	case s.strategy == "redis-setnx-expire" && s.b != "lock_timeout":
		return false, fmt.Sprintf("buyer-2 answered %s, not lock_timeout", s.b)
	case s.strategy == "redis-setnx-expire" && s.took < setnxMinWait:
		return false, fmt.Sprintf("buyer-2's lock_timeout came after %d ms, under %v: it did not wait out the lock wait",
			s.took.Milliseconds(), setnxMinWait)
	case s.strategy == "redis-setnx-expire" && s.got.Sold != 0:
		return false, fmt.Sprintf("sold %d, want 0", s.got.Sold)
	case s.strategy != "redis-setnx-expire" && s.b != shopapi.KindOrder:
		return false, fmt.Sprintf("buyer-2 answered %s, not order: the crashed holder's key did not expire", s.b)
	case s.strategy != "redis-setnx-expire" && (s.got.Sold != 1 || s.got.Oversold != 0):
		return false, fmt.Sprintf("sold %d oversold %d, want sold 1 oversold 0", s.got.Sold, s.got.Oversold)
	}
	return true, ""
}

// ttlShorterThanWork: redis, a TTL shorter than the work, buyers at once
// (ttlShorterThanWorkSettings), without then with the watchdog. Without it
// the key expires mid-work and the next buyer enters: the holder's Lost()
// check then aborts its write (lock_lost), but the sections overlapped.
// With it nothing does. The watchdog renews every ttl/3, so it keeps the
// lease only while its process runs within 2/3 of the TTL: at 450 ms a
// loaded machine stalled it past that and the fixed side overlapped too;
// a stall past the TTL is pause-past-ttl's lesson. The last buyer's wait
// (the others' work) stays well inside the shop's 10 s lock wait.
func ttlShorterThanWork(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	set := ttlShorterThanWorkSettings(sc.Pace)
	for _, watchdog := range []bool{false, true} {
		if watchdog {
			if err := sc.Next(ctx, "the same buyers with the watchdog, which renews the lease while the work runs: watch them take turns",
				"同样的买家，开启看门狗，它在业务执行期间为租约续期：看他们轮流进入临界区"); err != nil {
				return "", false, err
			}
		}
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario ttl-shorter-than-work",
			Strategy: "redis", Stock: set.Stock, WorkMS: set.WorkMS, TTLMS: set.TTLMS, Watchdog: &watchdog})
		if err != nil {
			return "", false, err
		}
		kinds := sc.Rounds(ctx, v.ID, sc.Targets, set.Buyers, set.CaseMin, "w")
		sent := 0
		for _, n := range kinds {
			sent += n
		}
		got, err := sc.Settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		ok, why := ttlSideHolds(watchdog, kinds, sent, got)
		pass = pass && ok
		part := fmt.Sprintf("watchdog=%v: %d ordered, %d lock_lost, %d waited past the lock wait; %s",
			watchdog, kinds[shopapi.KindOrder], kinds["lock_lost"], kinds["lock_timeout"], lessons.Describe(got))
		if !ok {
			part += " (FAIL: " + why + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}

// ttlSideHolds judges one case of ttl-shorter-than-work from the buyers'
// answers (kinds, of sent) and the sale. Without the watchdog the lease
// ran out under a holder: sections overlapped (violations >= 1) and the
// holder's check before its write stopped it (lock_lost >= 1), so its
// stale write never landed (lost_updates 0). With the watchdog nobody
// loses the lock and nothing overlaps; every buyer orders, or (on a
// machine too slow for the others' work to end within the shop's lock
// wait) waits it out: a lock_timeout is a buyer who waited, not one who
// overlapped.
func ttlSideHolds(watchdog bool, kinds map[string]int, sent int, got shopapi.SaleView) (bool, string) {
	if !watchdog {
		switch {
		case got.Violations < 1:
			return false, "no overlapping sections (violations 0): the lease did not run out under a holder"
		case kinds["lock_lost"] < 1:
			return false, "no lock_lost answer: no holder's check saw its lease gone"
		case got.LostUpdates != 0:
			return false, fmt.Sprintf("lost_updates %d: a holder wrote past its lost lease", got.LostUpdates)
		}
		return true, ""
	}
	waited := kinds[shopapi.KindOrder] + kinds["lock_timeout"]
	switch {
	case got.Violations != 0 || got.Oversold != 0 || got.LostUpdates != 0:
		return false, fmt.Sprintf("the watchdog's case broke: violations %d oversold %d lost_updates %d", got.Violations, got.Oversold, got.LostUpdates)
	case kinds["lock_lost"] != 0:
		return false, fmt.Sprintf("%d lock_lost with the watchdog", kinds["lock_lost"])
	case kinds[shopapi.KindOrder] < 1:
		return false, "nobody ordered with the watchdog"
	case waited != sent:
		return false, fmt.Sprintf("%d of %d answers neither order nor lock_timeout", sent-waited, sent)
	}
	return true, ""
}

// pausePastTTL: buyer A on target 1 takes a redis lock (ttl
// 500 ms, watchdog on) and stalls after its Lost() check (pause_holder);
// once it is observed stalled, the whole replica is stopped (stop_process:
// SIGSTOP, the watchdog freezes with it). The key expires and buyer B on
// target 2 takes the lock. Two interleavings, each without then with
// fencing:
//
//   - B commits while A is stopped; A wakes and writes the stock it read
//     before B's write: a lost update, or with fencing A's write refused.
//   - B reads, then stalls too (pause_holder on target 2); A wakes and
//     writes; B wakes and writes the stock it read before A's write. Fencing
//     that only checked the token at the write let both land; the fence claimed before the read refuses A's write.
//
// B may come before the key has expired; it then queues until it does.
func pausePastTTL(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, bStalls := range []bool{false, true} {
		for _, fencing := range []bool{false, true} {
			part, ok, err := sc.pausePastTTLOnce(ctx, pauseCase{strategy: "redis", ttlMS: 500, stopMS: 2000}, fencing, bStalls)
			if err != nil {
				return "", false, err
			}
			pass = pass && ok
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, " | "), pass, nil
}

// pauseCase is the lock pause-past-ttl stalls: its strategy, its lease and
// how long A's replica stops (longer than the lease: B must get the lock
// and commit while A is stopped).
type pauseCase struct {
	strategy      string
	ttlMS, stopMS int
}

func (sc *scenarioRun) pausePastTTLOnce(ctx context.Context, pc pauseCase, fencing, bStalls bool) (string, bool, error) {
	t1, t2 := sc.Targets[0], sc.Targets[1]
	name := "scenario pause-past-ttl" // the part after the lesson's name tells its cases apart in the result table
	if bStalls {
		name += ", buyer-2 reads first"
	}
	watchdog := true // the lesson is the renewing lock's: the stop freezes the watchdog with its holder
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: name, Strategy: pc.strategy,
		Stock: 10, TTLMS: pc.ttlMS, Fencing: fencing, Watchdog: &watchdog})
	if err != nil {
		return "", false, err
	}
	if err := sc.Warm(ctx, v.ID, t1, t2); err != nil {
		return "", false, err
	}
	stop := pc.stopMS // ms: A's stall and the replica's stop overlap, A writes when both are over
	if bStalls {
		stop += 1000 // B must get the lock (key expiry) and read before A wakes
	} else {
		// B is sent 1 s into the stop and must have its answer before A
		// wakes: a loaded make test once took longer than the 1 s that was
		// left (B answered after A, "A still stopped then: false").
		stop += 2000
	}
	a, err := sc.StalledOrder(ctx, t1, v.ID, "buyer-1", stop)
	if err != nil {
		return "", false, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.StopProcess, "ms": stop}); err != nil {
		return "", false, err
	}
	var b string
	aStalled := true
	if bStalls {
		bc, err := sc.StalledOrder(ctx, t2, v.ID, "buyer-2", 2*stop) // B holds the lock and has read
		if err != nil {
			return "", false, err
		}
		aStalled = len(a) == 0
		b = <-bc
	} else {
		if err := load.Sleep(ctx, time.Second); err != nil { // the key has (about) expired by now
			return "", false, err
		}
		b = sc.C.Order(ctx, shopapi.OrdersURL(t2, v.ID), "buyer-2")
		aStalled = len(a) == 0
	}
	aKind := <-a
	got, err := sc.Settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	o := pauseOutcome{fencing: fencing, aStalled: aStalled, aKind: aKind, b: b, got: got}
	pass, why := o.holds()
	what := "buyer-2 commits while buyer-1 is stopped"
	if bStalls {
		what = "buyer-2 reads while buyer-1 is stopped, writes after buyer-1"
	}
	out := fmt.Sprintf("%s%s, fencing=%v, watchdog=%v: buyer-1 still stopped then: %v; buyer-1 %s, buyer-2 %s; %s",
		strategyPrefix(pc.strategy), what, fencing, got.Watchdog, aStalled, aKind, b, lessons.Describe(got))
	if !pass {
		out += " (FAIL: " + why + ")"
	}
	return out, pass, nil
}

// pauseOutcome is what one case of pausePastTTLOnce saw: whether buyer-1
// had not answered yet when buyer-2 had (its replica still stopped), both
// answers and the sale.
type pauseOutcome struct {
	fencing  bool
	aStalled bool
	aKind, b string
	got      shopapi.SaleView
}

// holds: the sale ran with its watchdog on (the stop froze the renewals:
// no lease that simply was not renewed stands in for the pause), buyer-2
// bought while buyer-1 was still stopped, and buyer-1's stale write landed
// as a lost update, or with fencing was refused (fenced, fenced_writes 1,
// lost_updates 0, oversold 0).
func (o pauseOutcome) holds() (bool, string) {
	switch {
	case !o.got.Watchdog:
		return false, "the sale's watchdog is off: an unrenewed lease, not the pause, let buyer-2 in"
	case !o.aStalled:
		return false, "buyer-1 had answered before buyer-2 did: buyer-2 did not get in during the stop"
	case o.b != shopapi.KindOrder:
		return false, fmt.Sprintf("buyer-2 answered %s, not order", o.b)
	case o.fencing && (o.aKind != "fenced" || o.got.FencedWrites != 1 || o.got.LostUpdates != 0 || o.got.Oversold != 0):
		return false, fmt.Sprintf("with fencing buyer-1 answered %s, fenced_writes %d lost_updates %d oversold %d; want fenced, 1, 0, 0",
			o.aKind, o.got.FencedWrites, o.got.LostUpdates, o.got.Oversold)
	case !o.fencing && (o.aKind != shopapi.KindOrder || o.got.LostUpdates < 1):
		return false, fmt.Sprintf("without fencing buyer-1 answered %s, lost_updates %d; want order and a lost update", o.aKind, o.got.LostUpdates)
	}
	return true, ""
}

// strategyPrefix names a strategy other than redis in an observation.
func strategyPrefix(s string) string {
	if s == "redis" {
		return ""
	}
	return s + ": "
}
