package history

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// lostUpdateWitness finds two ok orders whose writes left the same stock:
// each read the same count and wrote it minus one, so one write overwrote
// the other (a lost update), whatever order they ran in. Sound on a capped
// record too.
func lostUpdateWitness(takes []Op) ([]WitnessItem, Texts, bool) {
	first := map[int64]Op{}
	for _, op := range takes {
		if op.StockLeft == nil {
			continue
		}
		if prev, seen := first[*op.StockLeft]; seen {
			pair := []Op{prev, op}
			return []WitnessItem{witnessItem(prev), witnessItem(op)}, Texts{
				En: fmt.Sprintf("Orders %s both left the stock at %d: each read %d and wrote %d, so one write overwrote the other (a lost update); a stock handing out one unit at a time cannot give these answers.",
					orderIDs(pair, false), *op.StockLeft, *op.StockLeft+1, *op.StockLeft),
				Zh: fmt.Sprintf("订单 %s 写入后库存都是 %d：两者都读到 %d、写入 %d，一次写入覆盖了另一次（丢失更新）；一件一件卖出的库存不可能给出这样的应答。",
					orderIDs(pair, true), *op.StockLeft, *op.StockLeft+1, *op.StockLeft),
			}, true
		}
		first[*op.StockLeft] = op
	}
	return nil, Texts{}, false
}

// countingWitness finds the small proofs that need no search:
//   - more ok answers than units: initialStock+1 of them cannot all have
//     succeeded (the earliest-called ones are listed); sound on an
//     incomplete record too;
//   - a sold_out answer given before the stock could have run out: at its
//     answer fewer than initialStock takes (ok or unknown) had even been
//     asked for, so units were left; it is listed with those takes.
//
// Both are sound: each take needs a unit, and a take is placed between its
// call and its return.
func countingWitness(ops []Op, initialStock int64, incomplete bool) ([]WitnessItem, Texts, bool) {
	var takes []Op
	for _, op := range ops {
		if op.Outcome == OK {
			takes = append(takes, op)
		}
	}
	sort.SliceStable(takes, func(i, j int) bool { return takes[i].CallAt.Before(takes[j].CallAt) })
	if int64(len(takes)) > initialStock {
		w := make([]WitnessItem, 0, initialStock+1)
		for _, op := range takes[:initialStock+1] {
			w = append(w, witnessItem(op))
		}
		listed := takes[:initialStock+1]
		return w, Texts{
			En: fmt.Sprintf("These %d orders cannot all have succeeded from a stock of %d: %s (%d ok answers in all).",
				initialStock+1, initialStock, orderIDs(listed, false), len(takes)),
			Zh: fmt.Sprintf("库存只有 %d 件，这 %d 个订单不可能全部成功：%s（共 %d 个成功应答）。",
				initialStock, initialStock+1, orderIDs(listed, true), len(takes)),
		}, true
	}
	if w, msg, found := lostUpdateWitness(takes); found {
		return w, msg, true
	}
	if incomplete {
		return nil, Texts{}, false // takes are missing (capped, lost): only the counts above are sound
	}
	for _, op := range ops {
		if op.Outcome == Unknown {
			takes = append(takes, op)
		}
	}
	sort.SliceStable(takes, func(i, j int) bool { return takes[i].CallAt.Before(takes[j].CallAt) })
	var soldOut []Op
	for _, op := range ops {
		if op.Outcome == SoldOut {
			soldOut = append(soldOut, op)
		}
	}
	sort.SliceStable(soldOut, func(i, j int) bool { return soldOut[i].ReturnAt.Before(soldOut[j].ReturnAt) })
	if len(soldOut) == 0 {
		return nil, Texts{}, false
	}
	first := soldOut[0] // the earliest answer has the fewest takes before it
	before := sort.Search(len(takes), func(i int) bool { return takes[i].CallAt.After(first.ReturnAt) })
	if int64(before) >= initialStock {
		return nil, Texts{}, false
	}
	w := []WitnessItem{witnessItem(first)}
	for _, op := range takes[:before] {
		w = append(w, witnessItem(op))
	}
	return w, Texts{
		En: fmt.Sprintf("Request %d was told sold out, but when it was answered only %d of the %d units could have been taken.",
			first.ID, before, initialStock),
		Zh: fmt.Sprintf("请求 %d 被告知已售罄，但应答时 %d 件库存中最多只有 %d 件可能被买走。",
			first.ID, initialStock, before),
	}, true
}

// stuckWitness lists, when porcupine proved the history illegal with no
// counting proof, the first ops (by call) that its longest partial
// linearization could not place: where the search got stuck.
func stuckWitness(ops []Op, info porcupine.LinearizationInfo) []WitnessItem {
	hist := operations(ops)
	placed := map[int]bool{}
	for _, part := range info.PartialLinearizations() {
		longest := []int{}
		for _, l := range part {
			if len(l) > len(longest) {
				longest = l
			}
		}
		for _, id := range longest {
			placed[id] = true
		}
	}
	// operations sorted ops by call; the ids are indexes into hist.
	sorted := append([]Op(nil), ops...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CallAt.Before(sorted[j].CallAt) })
	var w []WitnessItem
	for i := range hist {
		if !placed[i] && len(w) < 5 {
			w = append(w, witnessItem(sorted[i]))
		}
	}
	return w
}

// orderIDs lists the ops' order ids for a sentence, in words ("93 and 92";
// Chinese 93、92): "#" numbers the lock's tokens on the dashboard, so an
// order id never wears one. An op with no order is "request 5" (请求 5).
func orderIDs(ops []Op, zh bool) string {
	parts := make([]string, 0, len(ops))
	for _, op := range ops {
		switch {
		case op.OrderID != nil:
			parts = append(parts, strconv.FormatUint(*op.OrderID, 10))
		case zh:
			parts = append(parts, fmt.Sprintf("请求 %d", op.ID))
		default:
			parts = append(parts, fmt.Sprintf("request %d", op.ID))
		}
	}
	more := len(parts) > 12
	if more {
		parts = parts[:12]
	}
	switch {
	case zh && more:
		return strings.Join(parts, "、") + "……"
	case zh:
		return strings.Join(parts, "、")
	case more:
		return strings.Join(parts, ", ") + ", ..."
	case len(parts) > 1:
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}
