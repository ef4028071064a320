package chaos

import (
	"context"
	"fmt"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// histories asks the shop to check each of c's sales for linearizability
// (GET /api/sales/{id}/history), after storeDrift made every replica write
// its answers' history. It counts the sales per verdict ("-": not checked).
func (c *chaosConfig) histories(ctx context.Context, cl *shopapi.Client, targets []string) map[string]int {
	c.mu.Lock()
	sales := append([]uint64(nil), c.sales...)
	c.mu.Unlock()
	got := map[string]int{}
	for _, id := range sales {
		h := load.CheckHistory(ctx, cl, targets, id)
		if h == nil {
			got["-"]++
			continue
		}
		got[h.Verdict]++
	}
	return got
}

// linearizableCell is the LINEARIZABLE column: yes when every sale's
// history is, else how many are not or could not be told. Not asserted: a
// killed replica takes the history it had not written yet with it, and a
// missing ok answer can make a sold_out look early.
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
