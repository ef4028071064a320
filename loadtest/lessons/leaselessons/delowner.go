package leaselessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// del-without-owner isolates the plain DEL: both sides run with the same
// TTL and the same watchdog setting (off: redis-no-owner has none), so
// that an expiry happens on both alike, and the evidence is counted: a
// release that deleted another holder's lock (the lease event freed_other,
// which redis-no-owner reports from its release), followed by an overlap
// that began after it (the third buyer the DEL let in). The owner-checked
// side must have met the same stale release (release_refused) and have
// freed nothing.

// delSide is what one side of del-without-owner showed.
type delSide struct {
	strategy string
	ttlMS    int  // the sale's TTL, as the shop stored it
	renews   bool // a watchdog renewed the lease
	// freed, refused: stale releases that deleted another holder's lock
	// (freed_other) or found it another's and left it (release_refused).
	freed, refused int
	// overlapsAfter: overlaps that began at or after the first stale
	// release (freed or refused): the ones a release let in.
	overlapsAfter int
	kinds         map[string]int
	view          shopapi.SaleView
}

func (d delSide) String() string {
	return fmt.Sprintf("%s (ttl %d ms, watchdog %v): %d ordered, %d lock_lost, %d freed another's lock, %d release refused, "+
		"%d overlaps began after a stale release; %s", d.strategy, d.ttlMS, d.renews, d.kinds[shopapi.KindOrder],
		d.kinds["lock_lost"], d.freed, d.refused, d.overlapsAfter, lessons.Describe(d.view))
}

// delWithoutOwnerHolds is the lesson's verdict: the same TTL and watchdog
// on both sides; the plain DEL freed another holder's lock at least once
// and a buyer entered beside that holder afterwards; the owner-checked
// release met the same stale release, refused it, nobody entered after it,
// and nothing was oversold or lost. why names the first condition that
// failed.
func delWithoutOwnerHolds(unsafe, safe delSide) (ok bool, why string) {
	switch {
	case unsafe.ttlMS != safe.ttlMS || unsafe.renews || safe.renews:
		return false, "the two sides differ in more than the release (TTL or watchdog)"
	case unsafe.freed < 1:
		return false, unsafe.strategy + " freed no other holder's lock"
	case unsafe.overlapsAfter < 1:
		return false, unsafe.strategy + ": no buyer entered after the freed lock"
	case safe.freed != 0:
		return false, safe.strategy + " freed another holder's lock"
	case safe.refused < 1:
		return false, safe.strategy + " met no stale release to refuse"
	case safe.overlapsAfter != 0:
		return false, safe.strategy + ": a buyer entered after the refused release"
	case safe.view.Oversold != 0 || safe.view.LostUpdates != 0:
		return false, safe.strategy + " oversold or lost an update"
	}
	return true, ""
}

// delWithoutOwner: TTL 4 s and 2 s of work on both sides, watchdog off.
// buyer-1 takes the lock and, in a slow business step (slow_work, 2.5 s,
// before its lock check), outlives its TTL: the lock expires at 4 s,
// buyer-2 enters beside buyer-1 (the expiry's overlap, on both sides
// alike), buyer-1's check stops it (lock_lost) and buyer-1 releases at
// about 4.5 s, while buyer-2 works until about 6 s, 2 s within its own TTL
// (8 s): with 1 s to spare (TTL 3 s) a loaded make test let buyer-2's own
// lease expire and buyer-3 enter on the owner-checked side too.
// redis-no-owner's plain DEL deletes buyer-2's lock and buyer-3, waiting
// since buyer-2 was sent, enters beside buyer-2: an overlap that only the
// DEL made (and buyer-3's stale read a lost update). redis's owner-checked
// release finds buyer-2's lock and leaves it: buyer-3 waits for buyer-2.
func delWithoutOwner(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var sides []delSide
	off := false
	t1 := sc.Targets[0]
	for _, strategy := range []string{"redis-no-owner", "redis"} {
		req := shopapi.SaleRequest{Name: "scenario del-without-owner", Strategy: strategy, Stock: 10, WorkMS: 2000, TTLMS: 4000}
		if strategy == "redis" {
			req.Watchdog = &off // redis-no-owner has none to turn off
		}
		v, _, err := sc.C.CreateSale(ctx, t1, req)
		if err != nil {
			return "", false, err
		}
		if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.SlowWork, "ms": 2500}); err != nil {
			return "", false, err
		}
		kinds := map[string]int{}
		a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
		if err := sc.WaitPaused(ctx, t1); err != nil { // buyer-1 holds the lock, in its slow step
			return "", false, err
		}
		b := sc.OrderAsync(ctx, sc.Last(), v.ID, "buyer-2")
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return "", false, err
		}
		c := sc.OrderAsync(ctx, t1, v.ID, "buyer-3")
		for _, ch := range []<-chan string{a, b, c} {
			kinds[<-ch]++
		}
		got, err := sc.Settled(ctx, v.ID)
		if err != nil {
			return "", false, err
		}
		d, err := sc.releaseTrail(ctx, t1, v.ID, strategy == "redis-no-owner")
		if err != nil {
			return "", false, err
		}
		d.strategy, d.kinds, d.view = strategy, kinds, got
		sides = append(sides, d)
	}
	ok, why := delWithoutOwnerHolds(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// saleTrail is the part of GET /api/sales/{id}/timeline the lesson reads.
type saleTrail struct {
	TTLMS    int  `json:"ttl_ms"`
	Watchdog bool `json:"watchdog"`
	Overlaps []struct {
		From float64 `json:"from"`
	} `json:"overlaps"`
	Leases []struct {
		Event string  `json:"event"`
		At    float64 `json:"at"`
	} `json:"leases"`
}

// releaseTrail reads the sale's timeline from target until a stale release
// shows (lease events are written in the background; 5 s at most) and
// counts the stale releases and the overlaps that began after the first.
// plainDel says the strategy releases by plain DEL and has no watchdog.
func (sc *scenarioRun) releaseTrail(ctx context.Context, target string, id uint64, plainDel bool) (delSide, error) {
	url := target + "/api/sales/" + strconv.FormatUint(id, 10) + "/timeline"
	deadline := time.Now().Add(5 * time.Second)
	for {
		var t saleTrail
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &t); err != nil {
			return delSide{}, err
		}
		d := delSide{ttlMS: t.TTLMS, renews: t.Watchdog && !plainDel}
		first := 0.0
		for _, l := range t.Leases {
			if l.Event != "freed_other" && l.Event != "release_refused" {
				continue
			}
			if l.Event == "freed_other" {
				d.freed++
			} else {
				d.refused++
			}
			if first == 0 || l.At < first {
				first = l.At
			}
		}
		for _, o := range t.Overlaps {
			if first > 0 && o.From >= first {
				d.overlapsAfter++
			}
		}
		if d.freed+d.refused > 0 || time.Now().After(deadline) {
			return d, nil
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return delSide{}, err
		}
	}
}
