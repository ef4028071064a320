package contentionlessons

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// quorumRounds are a redlock sale's quorum rounds, all replicas
// (GET /api/sales/{id}/live quorum_rounds).
type quorumRounds struct {
	Acquisitions int64 `json:"acquisitions"`
	Rounds       int64 `json:"rounds"`
	Split        int64 `json:"split"`
}

func (q quorumRounds) per(n int64) float64 {
	if q.Acquisitions == 0 {
		return 0
	}
	return float64(n) / float64(q.Acquisitions)
}

// quorum reads sale id's quorum rounds; truth has waited for every
// replica's figures first.
func (sc *scenarioRun) quorum(ctx context.Context, id uint64) (quorumRounds, error) {
	var l struct {
		Q quorumRounds `json:"quorum_rounds"`
	}
	url := sc.Targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/live"
	_, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l)
	return l.Q, err
}

// redlockHerd: RedLock under a herd, as redsync meets it and with the
// per-process queue. 60 units, 240 buyers (96 at a time, spread over the
// replicas) fire at the opening of a redlock sale, first with no_queue
// (every waiter polls the three masters itself, 5-20 ms apart), then as
// the strategy runs by default. Without the queue the masters' votes
// split among the waiters: at least one failed quorum round per
// acquisition. With it one contender per replica reaches the masters:
// fewer failed quorum rounds than acquisitions, and fewer than without.
// Both must sell exactly what the database counts. Rounds are counted by
// the replicas (no clock judges); the time to sell out is shown only. The
// result line gives the figures in English, then in Chinese.
func redlockHerd(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var got [2]quorumRounds
	var parts, partsZh []string
	pass := true
	for i, noQueue := range []bool{true, false} {
		guards := map[string]any{"strategy": "redlock"}
		if noQueue {
			guards["no_queue"] = true
		}
		id, opens, err := sc.herdSale(ctx, "scenario redlock-herd", 60, guards)
		if err != nil {
			return "", false, err
		}
		all := sc.herd(ctx, id, opens, herdSpec{buyers: 240, clicks: 1, workers: 96, prefix: "b"})
		t, err := sc.truth(ctx, id, answered(all))
		if err != nil {
			return "", false, err
		}
		q, err := sc.quorum(ctx, id)
		if err != nil {
			return "", false, err
		}
		got[i] = q
		pass = pass && t.exact() && q.Acquisitions >= t.view.Sold
		queue, queueZh := "on", "开"
		if noQueue {
			queue, queueZh = "off", "关"
			pass = pass && q.Split >= q.Acquisitions
		} else {
			pass = pass && q.Split < q.Acquisitions && q.Split < got[0].Split
		}
		parts = append(parts, fmt.Sprintf("local queue %s: %d acquisitions took %d quorum rounds (%.1f per acquisition), "+
			"%d of them failed with the votes split (%.2f per acquisition); sold out %.2f s after the opening; %s",
			queue, q.Acquisitions, q.Rounds, q.per(q.Rounds), q.Split, q.per(q.Split), lastOrderAfter(all, opens), lessons.Describe(t.view)))
		partsZh = append(partsZh, fmt.Sprintf("本地排队%s：%d 次加锁用了 %d 轮多数派投票（每次加锁 %.1f 轮），其中 %d 轮因选票分散而失败"+
			"（每次加锁 %.2f 轮）；开售后 %.2f 秒售罄；卖出 %d/%d，超卖 %d，丢失更新 %d",
			queueZh, q.Acquisitions, q.Rounds, q.per(q.Rounds), q.Split, q.per(q.Split), lastOrderAfter(all, opens),
			t.view.Sold, t.view.InitialStock, t.view.Oversold, t.view.LostUpdates))
	}
	return strings.Join(parts, " | ") + " || " + strings.Join(partsZh, " | "), pass, nil
}

// lastOrderAfter is the seconds from the opening to the last order (0
// when none was made).
func lastOrderAfter(all []herdAnswer, opens time.Time) float64 {
	var last time.Time
	for _, a := range all {
		if a.status == http.StatusCreated && a.done.After(last) {
			last = a.done
		}
	}
	if last.IsZero() {
		return 0
	}
	return last.Sub(opens).Seconds()
}
