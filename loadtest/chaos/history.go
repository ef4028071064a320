package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/history"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// histories asks the shop to check each sale of every configuration for
// linearizability (GET /api/sales/{id}/history), after storeDrift made
// every replica write its answers' history, and counts each
// configuration's sales per verdict ("-": not checked). A replica that was
// stopped or restarting may write its answers a moment later, and only
// then does an order with no answer count as lost (history.AnswerGrace):
// a sale that reads not linearizable is checked once more past that grace,
// and the second reading counts.
func histories(ctx context.Context, configs []*chaosConfig, cl *shopapi.Client, targets []string) []map[string]int {
	type sale struct {
		config int
		id     uint64
	}
	got := make([]map[string]int, len(configs))
	var again []sale
	for i, c := range configs {
		c.mu.Lock()
		sales := append([]uint64(nil), c.sales...)
		c.mu.Unlock()
		got[i] = map[string]int{}
		for _, id := range sales {
			h := load.CheckHistory(ctx, cl, targets, id)
			switch {
			case h == nil:
				got[i]["-"]++
			case h.Verdict == history.NotLinearizable:
				again = append(again, sale{i, id})
			default:
				got[i][h.Verdict]++
			}
		}
	}
	if len(again) > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(history.AnswerGrace + time.Second):
		}
	}
	for _, s := range again {
		if h := load.CheckHistory(ctx, cl, targets, s.id); h != nil {
			got[s.config][h.Verdict]++
		} else {
			got[s.config]["-"]++
		}
	}
	return got
}

// linearizableCell is the LINEARIZABLE column: yes when every sale's
// history is, else how many are not or could not be told. Not asserted:
// redis-lua-stock gives a unit back when its persist fails, so a buyer
// told sold out in between missed a unit a later buyer got, which is truly
// not linearizable (the price of taking the unit in Redis first).
func linearizableCell(byVerdict map[string]int) string {
	switch no, unsure := byVerdict["not_linearizable"], byVerdict["unknown"]+byVerdict["-"]; {
	case no > 0 && unsure > 0:
		return fmt.Sprintf("NO %d, ? %d", no, unsure)
	case no > 0:
		return fmt.Sprintf("NO %d", no)
	case unsure > 0:
		return fmt.Sprintf("? %d", unsure)
	case byVerdict["linearizable"] > 0:
		return "yes"
	}
	return "-"
}
