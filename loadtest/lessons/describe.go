package lessons

import (
	"fmt"
	"sort"
	"strings"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// KindList is "3 db_unavailable, 1 order", sorted.
func KindList(kinds map[string]int) string {
	var out []string
	for k, n := range kinds {
		out = append(out, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "no order sent"
	}
	return strings.Join(out, ", ")
}

// Describe is a case's figures and the shop's verdict on them (holds,
// overlapped, data safe, or BROKEN).
func Describe(v shopapi.SaleView) string {
	return fmt.Sprintf("sold %d stock %d oversold %d lost_updates %d violations %d fenced_writes %d: %s",
		v.Sold, v.Stock, v.Oversold, v.LostUpdates, v.Violations, v.FencedWrites, v.Verdict.Word())
}
