package history

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"
)

// Verdicts of the check.
const (
	Linearizable    = "linearizable"
	NotLinearizable = "not_linearizable"
	VerdictUnknown  = "unknown" // the bounded check ran out of time, or the record is incomplete
)

// Texts is a sentence in English and Chinese.
type Texts struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Result is a sale's verdict: the ops checked and, when not linearizable,
// a small set of them that cannot all have happened as answered.
type Result struct {
	Verdict    string        `json:"verdict"`
	Operations int           `json:"operations"`
	Witness    []WitnessItem `json:"witness"`
	Message    Texts         `json:"message"`
	// Visualization is where porcupine's drawing of the check is served.
	Visualization string `json:"visualization,omitempty"`
}

// WitnessItem is one order request of a witness. Times are milliseconds
// since the Unix epoch with a microsecond fraction (the timeline's).
type WitnessItem struct {
	ID      uint64  `json:"id"`
	OrderID *uint64 `json:"order_id"`
	Replica string  `json:"replica"`
	Outcome string  `json:"outcome"`
	Call    float64 `json:"call"`
	Return  float64 `json:"return"`
}

// Millis is t as milliseconds since the Unix epoch with a microsecond fraction.
func Millis(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }

// Check judges ops (a sale's record) against a stock of initialStock,
// spending at most bound in porcupine. Refused answers took nothing and
// change no state, so they are left out of the search.
func Check(ops []Op, initialStock int64, bound time.Duration) Result {
	r, _, _ := check(ops, initialStock, bound, false)
	return r
}

// Visualize writes porcupine's interactive drawing of the check of ops
// (HTML) to w.
func Visualize(w io.Writer, ops []Op, initialStock int64, bound time.Duration) error {
	_, info, checked := check(ops, initialStock, bound, true)
	if !checked {
		return fmt.Errorf("history: the check did not finish within %v: nothing to draw", bound)
	}
	return porcupine.Visualize(stockModel(initialStock), info, w)
}

func check(ops []Op, initialStock int64, bound time.Duration, always bool) (Result, porcupine.LinearizationInfo, bool) {
	capped := false
	var relevant []Op
	for _, op := range ops {
		switch op.Outcome {
		case Capped:
			capped = true
		case OK, SoldOut, Unknown:
			relevant = append(relevant, op)
		}
	}
	res := Result{Operations: len(ops) - boolInt(capped), Witness: []WitnessItem{}}
	if w, msg, found := countingWitness(relevant, initialStock, capped); found {
		res.Verdict, res.Witness, res.Message = NotLinearizable, w, msg
		if !always {
			return res, porcupine.LinearizationInfo{}, false
		}
		_, info := porcupine.CheckOperationsVerbose(stockModel(initialStock), operations(relevant), bound)
		return res, info, true
	}
	if capped {
		res.Verdict = VerdictUnknown
		res.Message = Texts{
			En: fmt.Sprintf("The record is incomplete: a replica stopped at %d orders of this sale, and no count of the recorded ones proves an oversell.", PerSaleCap),
			Zh: fmt.Sprintf("记录不完整：某个副本在本场记录满 %d 个订单后停止记录，已记录的订单数不足以证明超卖。", PerSaleCap),
		}
		return res, porcupine.LinearizationInfo{}, false
	}
	hist := operations(relevant)
	got, info := porcupine.CheckOperationsVerbose(stockModel(initialStock), hist, bound)
	switch got {
	case porcupine.Ok:
		res.Verdict = Linearizable
		res.Message = Texts{
			En: fmt.Sprintf("All %d answers fit one order of events on a stock of %d: each unit handed out once.", res.Operations, initialStock),
			Zh: fmt.Sprintf("全部 %d 个应答可以排成一个顺序，与库存 %d 相符：每件商品只卖出一次。", res.Operations, initialStock),
		}
	case porcupine.Illegal:
		res.Verdict = NotLinearizable
		res.Witness = stuckWitness(relevant, info)
		res.Message = Texts{
			En: fmt.Sprintf("No order of events on a stock of %d gives these answers: porcupine cannot place the orders listed.", initialStock),
			Zh: fmt.Sprintf("在库存 %d 上，没有任何事件顺序能给出这些应答：porcupine 无法安排所列订单。", initialStock),
		}
	default:
		res.Verdict = VerdictUnknown
		res.Message = Texts{
			En: fmt.Sprintf("The check of %d answers did not finish within %v.", res.Operations, bound),
			Zh: fmt.Sprintf("对 %d 个应答的检查未能在 %v 内完成。", res.Operations, bound),
		}
	}
	return res, info, got != porcupine.Unknown
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// stockModel is the stock as porcupine sees it: the state is the units
// left. An ok take needs a unit and takes it; a sold_out answer needs
// none left. An unknown answer takes a unit if any is left: its return is
// the end of the history (operations), so when it did not happen it can be
// placed last, where what it does changes nothing.
func stockModel(initialStock int64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initialStock },
		Step: func(state, _, output any) (bool, any) {
			units := state.(int64)
			switch output.(string) {
			case OK:
				return units > 0, units - 1
			case SoldOut:
				return units == 0, units
			}
			if units > 0 { // Unknown
				return true, units - 1
			}
			return true, units
		},
		Hash: func(state any) uint64 { return uint64(state.(int64)) },
		DescribeOperation: func(_, output any) string {
			return "take() -> " + output.(string)
		},
		DescribeState: func(state any) string { return strconv.FormatInt(state.(int64), 10) + " left" },
		DescribeOperationMetadata: func(info any) string {
			return info.(string)
		},
	}
}

// operations turns ops into porcupine's, in microseconds, an unknown
// answer returning at the end of the history. Each op gets the lowest
// client row free at its call, so that the drawing has few rows.
func operations(ops []Op) []porcupine.Operation {
	var end int64
	for _, op := range ops {
		end = max(end, op.CallAt.UnixMicro(), op.ReturnAt.UnixMicro())
	}
	end++
	sorted := append([]Op(nil), ops...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CallAt.Before(sorted[j].CallAt) })
	var rowFree []int64 // per client row: when its last op returned
	out := make([]porcupine.Operation, 0, len(sorted))
	for _, op := range sorted {
		call, ret := op.CallAt.UnixMicro(), op.ReturnAt.UnixMicro()
		if op.Outcome == Unknown {
			ret = end
		}
		row := len(rowFree)
		for i, free := range rowFree {
			if free < call {
				row = i
				break
			}
		}
		if row == len(rowFree) {
			rowFree = append(rowFree, 0)
		}
		rowFree[row] = ret
		out = append(out, porcupine.Operation{ClientId: row, Call: call, Return: ret, Output: op.Outcome,
			Metadata: describe(op)})
	}
	return out
}

func describe(op Op) string {
	s := fmt.Sprintf("request %d on %s", op.ID, op.ReplicaID)
	if op.OrderID != nil {
		s += fmt.Sprintf(", order %d", *op.OrderID)
	}
	return s
}

func witnessItem(op Op) WitnessItem {
	return WitnessItem{ID: op.ID, OrderID: op.OrderID, Replica: op.ReplicaID, Outcome: op.Outcome,
		Call: Millis(op.CallAt), Return: Millis(op.ReturnAt)}
}
