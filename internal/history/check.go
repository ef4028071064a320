package history

import (
	"fmt"
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

func check(ops []Op, initialStock int64, bound time.Duration, always bool) (Result, porcupine.LinearizationInfo, bool) {
	capped, restocked, lost := false, false, markers(ops, Lost)
	var relevant []Op
	for _, op := range ops {
		switch op.Outcome {
		case Capped:
			capped = true
		case Restocked:
			restocked = true
		case OK, SoldOut, Unknown:
			relevant = append(relevant, op)
		}
	}
	if restocked {
		for i := range relevant {
			relevant[i].StockLeft = nil
		}
	}
	res := Result{Operations: len(ops) - boolInt(capped) - markers(ops, Restocked) - lost, Witness: []WitnessItem{}}
	if w, msg, found := countingWitness(relevant, initialStock, capped || lost > 0); found {
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
	if lost > 0 {
		res.Verdict = VerdictUnknown
		res.Message = Texts{
			En: fmt.Sprintf("The record is incomplete: %d requests of this sale have no recorded answer (a replica died before writing them, or with a unit the reconciliation gave back), and no count of the recorded ones proves an oversell.", lost),
			Zh: fmt.Sprintf("记录不完整：本场有 %d 个请求没有记录应答（某个实例在写入前已终止，或其占用的库存已由对账回补），已记录的应答不足以证明超卖。", lost),
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

// markers counts the ops that are the marker outcome, not answers.
func markers(ops []Op, outcome string) int {
	n := 0
	for _, op := range ops {
		if op.Outcome == outcome {
			n++
		}
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// answer is an operation's output: its outcome and, for an ok whose write
// is known, the stock it left (-1: not known).
type answer struct {
	outcome string
	left    int64
}

// units is what the stock may hold: every count from lo to hi is possible,
// because an unknown answer may or may not have taken a unit. The set of
// possible counts stays an interval under every step.
type units struct{ lo, hi int64 }

// stockModel is the stock as porcupine sees it: the state is the units
// that may be left. An ok take needs a unit and takes it; a sold_out answer
// needs none left; an unknown answer took a unit (when one was left) or
// nothing. Whatever an order did, it did between its arrival and the
// shop's answer (the answer is written after the commit or the rollback),
// so an unknown keeps its real return: no search over where to put it
// after everything else.
func stockModel(initialStock int64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return units{initialStock, initialStock} },
		Step: func(state, _, output any) (bool, any) {
			u := state.(units)
			a := output.(answer)
			switch a.outcome {
			case OK:
				if a.left >= 0 { // it wrote left: there were left+1 units before it
					return u.lo <= a.left+1 && a.left+1 <= u.hi, units{a.left, a.left}
				}
				return u.hi > 0, units{max(u.lo, 1) - 1, u.hi - 1}
			case SoldOut:
				return u.lo == 0, units{0, 0}
			}
			return true, units{max(u.lo-1, 0), u.hi} // Unknown
		},
		Hash: func(state any) uint64 { u := state.(units); return uint64(u.lo)<<32 ^ uint64(u.hi) },
		DescribeOperation: func(_, output any) string {
			a := output.(answer)
			if a.left >= 0 {
				return fmt.Sprintf("take() -> %s, wrote %d left", a.outcome, a.left)
			}
			return "take() -> " + a.outcome
		},
		DescribeState: func(state any) string {
			u := state.(units)
			if u.lo == u.hi {
				return strconv.FormatInt(u.hi, 10) + " left"
			}
			return fmt.Sprintf("%d to %d left", u.lo, u.hi)
		},
		DescribeOperationMetadata: func(info any) string {
			return info.(string)
		},
	}
}

// operations turns ops into porcupine's, in microseconds. Each replica has
// its own client rows, in the order of the replicas' names, and each op
// gets its replica's lowest row free at its call, so that the drawing has
// few rows and each is named by a replica (rowNames).
func operations(ops []Op) []porcupine.Operation {
	sorted, rows, _ := assignRows(ops)
	out := make([]porcupine.Operation, 0, len(sorted))
	for i, op := range sorted {
		a := answer{outcome: op.Outcome, left: -1}
		if op.StockLeft != nil {
			a.left = *op.StockLeft
		}
		out = append(out, porcupine.Operation{ClientId: rows[i], Call: op.CallAt.UnixMicro(), Return: op.ReturnAt.UnixMicro(),
			Output: a, Metadata: describe(op)})
	}
	return out
}

// rowKey names a client row of the drawing: a replica and its row (0: its
// first).
type rowKey struct {
	Replica string
	Lane    int
}

// assignRows sorts ops by call and gives each its client row; keys[row]
// names each row.
func assignRows(ops []Op) (sorted []Op, rows []int, keys []rowKey) {
	sorted = append([]Op(nil), ops...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].CallAt.Before(sorted[j].CallAt) })
	free := map[string][]int64{} // per replica, per lane: when its last op returned
	lanes := make([]int, len(sorted))
	for i, op := range sorted {
		call := op.CallAt.UnixMicro()
		laneFree := free[op.ReplicaID]
		lane := len(laneFree)
		for l, f := range laneFree {
			if f < call {
				lane = l
				break
			}
		}
		if lane == len(laneFree) {
			laneFree = append(laneFree, 0)
		}
		laneFree[lane] = op.ReturnAt.UnixMicro()
		free[op.ReplicaID] = laneFree
		lanes[i] = lane
	}
	replicas := make([]string, 0, len(free))
	for r := range free {
		replicas = append(replicas, r)
	}
	sort.Strings(replicas)
	first := map[string]int{}
	for _, r := range replicas {
		first[r] = len(keys)
		for l := range free[r] {
			keys = append(keys, rowKey{r, l})
		}
	}
	rows = make([]int, len(sorted))
	for i, op := range sorted {
		rows[i] = first[op.ReplicaID] + lanes[i]
	}
	return sorted, rows, keys
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
