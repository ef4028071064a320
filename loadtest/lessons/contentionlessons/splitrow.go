package contentionlessons

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
)

// The herd of split-hot-row: units on sale, buyers firing at the opening,
// workers of them at a time (spread over the replicas).
const (
	splitStock   = 200
	splitBuyers  = 1600
	splitWorkers = 64
)

// splitHotRow: one hot row against the stock split into 8 (库存分段), on
// the same herd of db-conditional. With one shard every order's
// conditional decrement waits for the one row; with 8, eight buyers hold
// a row at once, and at the end a buyer whose home shard is empty moves on
// to the next with stock. Both must be exact (every unit sold once, stock
// 0, no lost update, the history linearizable), and split, every shard
// sold and the shards' sales add up to the orders. The time to sell out,
// orders/s and the per-shard figures are shown, not judged.
func splitHotRow(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, shards := range []int{1, 8} {
		id, opens, err := sc.herdSale(ctx, "scenario split-hot-row", splitStock,
			map[string]any{"strategy": "db-conditional", "stock_shards": shards})
		if err != nil {
			return "", false, err
		}
		all := sc.herd(ctx, id, opens, herdSpec{buyers: splitBuyers, clicks: 1, workers: splitWorkers, prefix: "s"})
		t, err := sc.truth(ctx, id, answered(all))
		if err != nil {
			return "", false, err
		}
		_, raw, err := sc.C.SettledSale(ctx, sc.Targets, id)
		if err != nil {
			return "", false, err
		}
		var h struct {
			History *struct {
				Verdict string `json:"verdict"`
			} `json:"history"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return "", false, err
		}
		history := "unchecked"
		if h.History != nil {
			history = h.History.Verdict
		}
		var lastOrder time.Time
		for _, a := range all {
			if a.status == 201 && a.done.After(lastOrder) {
				lastOrder = a.done
			}
		}
		sellOut := lastOrder.Sub(opens).Seconds()
		perS := 0.0
		if sellOut > 0 {
			perS = float64(t.view.Sold) / sellOut
		}
		ok, shardText := shardsHeld(t, shards)
		pass = pass && t.exact() && history == "linearizable" && ok
		parts = append(parts, fmt.Sprintf("%d shard(s): sold out %.2f s after the opening, %.0f orders/s; %s; history %s; %s",
			shards, sellOut, perS, shardText, history, lessons.Describe(t.view)))
	}
	return strings.Join(parts, " | "), pass, nil
}

// shardsHeld checks a herd's shards against its sale: one shard has no
// rows (its stock is the sale's own); n shards are n rows, each of which
// sold and is empty, whose sales add up to the sale's. It says the shards'
// figures: the orders each sold, and the buyers who found their home shard
// empty and moved on (the remainder gathered at the end).
func shardsHeld(t herdTruth, n int) (bool, string) {
	v := t.view
	if n == 1 {
		return len(v.Shards) == 0 && max(v.StockShards, 1) == 1, "one row: every order waited for it"
	}
	sold := make([]string, len(v.Shards))
	var sum, moved int64
	ok := len(v.Shards) == n && v.StockShards == n
	for i, s := range v.Shards {
		sold[i] = fmt.Sprint(s.Sold)
		sum, moved = sum+s.Sold, moved+s.MovedIn
		ok = ok && s.Sold > 0 && s.Stock == 0
	}
	ok = ok && sum == v.Sold
	return ok, fmt.Sprintf("orders per shard [%s] (sum %d); %d buyers found their home shard empty and moved on",
		strings.Join(sold, " "), sum, moved)
}
