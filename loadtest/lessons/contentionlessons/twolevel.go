package contentionlessons

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy/twolevel"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// tokenSection is a critical section of GET /api/sales/{id}/timeline: the
// replica it ran on and its lease's fencing token.
type tokenSection struct {
	Replica string `json:"replica"`
	Token   uint64 `json:"token"`
}

// localHandOffs counts the sections a redis-2level holder handed its lock
// to locally. Every Redis acquisition reserves MaxHandOffs+1 tokens, t to
// t+MaxHandOffs, and the k-th local holder after the first gets t+k, so two
// acquisitions' tokens are at least MaxHandOffs+1 apart: a token 1 to
// MaxHandOffs above the one before it (in token order) on the same replica
// is a hand-off.
func localHandOffs(sections []tokenSection) int {
	s := slices.Clone(sections)
	slices.SortFunc(s, func(a, b tokenSection) int { return cmp.Compare(a.Token, b.Token) })
	n := 0
	for i := 1; i < len(s); i++ {
		prev, cur := s[i-1], s[i]
		if prev.Token != 0 && cur.Token > prev.Token && cur.Token-prev.Token <= twolevel.MaxHandOffs && cur.Replica == prev.Replica {
			n++
		}
	}
	return n
}

// twoLevelStock is each sale's stock: 16 buyers, 6 orders each.
const twoLevelStock = 96

// handoffSide is what one sale of two-level-handoff observed.
type handoffSide struct {
	strategy string
	perSec   float64 // orders sold per second: shown, not judged
	sections int     // the sale's critical sections in its timeline
	handOffs int     // of those, local hand-offs (localHandOffs)
	view     shopapi.SaleView
}

func (h handoffSide) String() string {
	s := fmt.Sprintf("%s: %.0f orders/s; ", h.strategy, h.perSec)
	if h.strategy == "redis-2level" {
		s += fmt.Sprintf("%d of %d sections handed the lock on locally (no Redis round trip); ", h.handOffs, h.sections)
	}
	return s + lessons.Describe(h.view)
}

// twoLevelVerdict is two-level-handoff's verdict, and why not: both sales
// sold and exactly what the database counts (no oversell, no lost update,
// no overlap, no fenced write: the tokens stay monotonic across hand-offs),
// and redis-2level handed its lock off locally at least once.
func twoLevelVerdict(fifo, two handoffSide) (bool, string) {
	for _, h := range []handoffSide{fifo, two} {
		v := h.view
		switch {
		case v.Sold == 0:
			return false, h.strategy + " sold nothing"
		case v.Stock != twoLevelStock-v.Sold:
			return false, fmt.Sprintf("%s: stock %d after %d sold of %d", h.strategy, v.Stock, v.Sold, twoLevelStock)
		case v.Oversold != 0 || v.LostUpdates != 0 || v.Violations != 0 || v.FencedWrites != 0:
			return false, fmt.Sprintf("%s broke: oversold %d lost_updates %d violations %d fenced_writes %d",
				h.strategy, v.Oversold, v.LostUpdates, v.Violations, v.FencedWrites)
		}
	}
	if two.handOffs < 1 {
		return false, fmt.Sprintf("no local hand-off in redis-2level's %d sections: every one went to Redis", two.sections)
	}
	return true, ""
}

// twoLevelHandoff: the two-level lock's local hand-off (one lock per
// replica in front of Redis) on a real sale. The same contended load (16
// buyers over the targets, 6 orders each, 1 ms of work, fencing on) on redis
// and on redis-2level: both must sell exactly what the database counts (no
// oversell, no lost update, no overlap, no fenced write: the tokens stay
// monotonic across hand-offs), and redis-2level's timeline must show at
// least one local hand-off (a section's token a few above the one before it
// on the same replica, inside one Redis acquisition's reservation). How
// many orders per second each served is shown, not judged: on a shared
// machine the HTTP path dominates; the lock's own gain is
// BenchmarkContentionProcesses's figure.
func twoLevelHandoff(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var sides []handoffSide
	for _, strategy := range []string{"redis", "redis-2level"} {
		h := handoffSide{strategy: strategy}
		v, _, err := sc.C.CreateSale(ctx, sc.Targets[0], shopapi.SaleRequest{Name: "scenario two-level-handoff",
			Strategy: strategy, Stock: twoLevelStock, WorkMS: 1, Fencing: true})
		if err != nil {
			return "", false, err
		}
		start := time.Now()
		sc.Contend(ctx, v.ID, 16, 6)
		took := time.Since(start)
		if h.view, err = sc.Settled(ctx, v.ID); err != nil {
			return "", false, err
		}
		h.perSec = float64(h.view.Sold) / took.Seconds()
		if strategy == "redis-2level" {
			secs, err := sc.tokenSections(ctx, v.ID, int(h.view.Sold))
			if err != nil {
				return "", false, err
			}
			h.sections, h.handOffs = len(secs), localHandOffs(secs)
		}
		sides = append(sides, h)
	}
	ok, why := twoLevelVerdict(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// tokenSections reads sale id's critical sections from its timeline until
// there are at least want (sections are written in the background), 10 s
// at most.
func (sc *scenarioRun) tokenSections(ctx context.Context, id uint64, want int) ([]tokenSection, error) {
	for deadline := time.Now().Add(10 * time.Second); ; {
		url := fmt.Sprintf("%s/api/sales/%d/timeline?to=%d", sc.Targets[0], id, time.Now().Add(time.Minute).UnixMilli())
		var tl struct {
			Summarised bool           `json:"summarised"`
			Sections   []tokenSection `json:"sections"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &tl); err != nil {
			return nil, err
		}
		if tl.Summarised {
			return nil, fmt.Errorf("sale %d's timeline is summarised per bucket: no sections to read tokens from", id)
		}
		if len(tl.Sections) >= want || time.Now().After(deadline) {
			return tl.Sections, nil
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return nil, err
		}
	}
}
