package history

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 11, 26, 12, 0, 0, 0, time.UTC)

// op is a request called at call ms and answered at ret ms after t0.
func op(id uint64, call, ret int, outcome string) Op {
	o := Op{ID: id, SaleID: 1, ReplicaID: "r1", CallAt: t0.Add(time.Duration(call) * time.Millisecond),
		ReturnAt: t0.Add(time.Duration(ret) * time.Millisecond), Outcome: outcome}
	if outcome == OK {
		oid := id + 100
		o.OrderID = &oid
	}
	return o
}

func TestOversoldHistoryIsNotLinearizableWithAWitness(t *testing.T) {
	ops := []Op{op(1, 0, 10, OK), op(2, 1, 11, OK), op(3, 2, 12, OK), op(4, 3, 13, Refused)}
	r := Check(ops, 2, time.Second)
	if r.Verdict != NotLinearizable || len(r.Witness) != 3 || r.Operations != 4 {
		t.Fatalf("3 oks from a stock of 2: got %+v", r)
	}
}

func TestSoldOutBeforeTheStockRanOutIsNotLinearizable(t *testing.T) {
	// Request 1 is told sold out and answered before request 2, the only
	// take, was even asked for.
	ops := []Op{op(1, 0, 5, SoldOut), op(2, 10, 20, OK)}
	r := Check(ops, 1, time.Second)
	if r.Verdict != NotLinearizable || len(r.Witness) != 1 || r.Witness[0].ID != 1 {
		t.Fatalf("got %+v", r)
	}
}

func TestSerialTakesThenSoldOutAreLinearizable(t *testing.T) {
	ops := []Op{op(1, 0, 10, OK), op(2, 5, 20, OK), op(3, 15, 25, SoldOut), op(4, 30, 31, SoldOut)}
	if r := Check(ops, 2, time.Second); r.Verdict != Linearizable {
		t.Fatalf("got %+v", r)
	}
}

func TestUnknownAnswerJudgedBothWays(t *testing.T) {
	// It took the last unit: the later sold_out is explained by it.
	took := []Op{op(1, 0, 10, OK), op(2, 11, 12, Unknown), op(3, 20, 25, SoldOut)}
	if r := Check(took, 2, time.Second); r.Verdict != Linearizable {
		t.Fatalf("an unknown that took the last unit: got %+v", r)
	}
	// It did not happen: two later oks still fit a stock of 2.
	didNot := []Op{op(1, 0, 10, Unknown), op(2, 11, 12, OK), op(3, 20, 25, OK)}
	if r := Check(didNot, 2, time.Second); r.Verdict != Linearizable {
		t.Fatalf("an unknown that did not happen: got %+v", r)
	}
	// Whatever it did, a sold_out while a unit must remain is wrong: with
	// a stock of 3, one ok and one unknown cannot empty it.
	wrong := []Op{op(1, 0, 10, OK), op(2, 11, 12, Unknown), op(3, 20, 25, SoldOut)}
	if r := Check(wrong, 3, time.Second); r.Verdict != NotLinearizable {
		t.Fatalf("a sold out with a unit left whatever the unknown did: got %+v", r)
	}
}

func TestCheckThatCannotFinishAnswersUnknown(t *testing.T) {
	// Illegal, but no count shows it: request 1 was told sold out, so an
	// unknown took the only unit before it answered; then request 2 got a
	// unit. Sixty unknowns overlapping everything make porcupine try every
	// subset of them before it can say so: far beyond the bound.
	ops := []Op{op(1, 0, 100, SoldOut), op(2, 200, 300, OK), op(3, 0, 50, Unknown)}
	for i := range 60 {
		ops = append(ops, op(uint64(10+i), i, 400, Unknown))
	}
	r := Check(ops, 1, 200*time.Millisecond)
	if r.Verdict != VerdictUnknown {
		t.Fatalf("got %s: %s", r.Verdict, r.Message.En)
	}
	if small := Check(ops[:3], 1, time.Second); small.Verdict != NotLinearizable {
		t.Fatalf("without the unknowns: got %s", small.Verdict)
	}
}

func TestCappedRecordIsUnknownUnlessTheCountProvesAnOversell(t *testing.T) {
	ops := []Op{op(1, 0, 10, OK), op(2, 11, 12, Capped)}
	if r := Check(ops, 2, time.Second); r.Verdict != VerdictUnknown || r.Operations != 1 {
		t.Fatalf("got %+v", r)
	}
	ops = append(ops, op(3, 13, 14, OK), op(4, 15, 16, OK))
	if r := Check(ops, 2, time.Second); r.Verdict != NotLinearizable {
		t.Fatalf("got %+v", r)
	}
}

// left is op with the stock its write left.
func left(o Op, n int64) Op { o.StockLeft = &n; return o }

// Two orders that both read 5 and wrote 4: fewer oks than units, but one
// write overwrote the other (a lost update), which a stock handing out one
// unit at a time cannot do: not linearizable, the pair is the witness.
func TestLostUpdateIsNotLinearizable(t *testing.T) {
	ops := []Op{left(op(1, 0, 10, OK), 4), left(op(2, 1, 11, OK), 4), op(3, 20, 21, Refused)}
	r := Check(ops, 5, time.Second)
	if r.Verdict != NotLinearizable || len(r.Witness) != 2 {
		t.Fatalf("two writes of 4 from a stock of 5: got %+v", r)
	}
	// The model alone also refuses it (the proof above answers first).
	ops = []Op{left(op(1, 0, 10, OK), 4), left(op(2, 20, 30, OK), 2)}
	if r := Check(ops, 5, time.Second); r.Verdict != NotLinearizable {
		t.Fatalf("a write of 2 right after one of 4: got %+v", r)
	}
}

// Writes that follow one another down the stock are linearizable.
func TestSerialWritesAreLinearizable(t *testing.T) {
	ops := []Op{left(op(1, 0, 10, OK), 4), left(op(2, 5, 20, OK), 3), left(op(3, 15, 25, OK), 2)}
	if r := Check(ops, 5, time.Second); r.Verdict != Linearizable {
		t.Fatalf("writes 4, 3, 2 from 5: got %+v", r)
	}
}

// A restock adds units the initial stock does not show: the stock the
// writes left is then ignored, and the count model judges.
func TestRestockedSaleIgnoresTheStockLeft(t *testing.T) {
	restock := Op{ID: 9, SaleID: 1, ReplicaID: "r1", CallAt: t0.Add(15 * time.Millisecond), ReturnAt: t0.Add(15 * time.Millisecond), Outcome: Restocked}
	ops := []Op{left(op(1, 0, 10, OK), 0), restock, left(op(2, 20, 30, OK), 4)}
	if r := Check(ops, 6, time.Second); r.Verdict != Linearizable || r.Operations != 2 {
		t.Fatalf("1 unit, a restock of 5, another order: got %+v", r)
	}
}

// An order with no recorded answer (its replica died before writing it)
// makes the record incomplete: unknown, unless the recorded oks alone prove
// an oversell. Without the marker, the sold_out answer after it would read
// as a sale that said "sold out" with a unit left: not linearizable.
func TestLostAnswerMakesTheRecordUnknown(t *testing.T) {
	lost := op(3, 1, 1, Lost)
	ops := []Op{op(1, 0, 10, OK), op(2, 20, 30, SoldOut)}
	if r := Check(ops, 2, time.Second); r.Verdict != NotLinearizable {
		t.Fatalf("without the marker: got %+v", r)
	}
	r := Check(append(ops, lost), 2, time.Second)
	if r.Verdict != VerdictUnknown || r.Operations != 2 || !strings.Contains(r.Message.En, "1 requests") {
		t.Fatalf("got %+v", r)
	}
	ops = []Op{op(1, 0, 10, OK), op(2, 11, 12, OK), op(4, 13, 14, OK), lost}
	if r := Check(ops, 2, time.Second); r.Verdict != NotLinearizable {
		t.Fatalf("three oks on two units: got %+v", r)
	}
}

// A witness names its orders in words, never "#93" ("#" numbers tokens on
// the dashboard), in both languages.
func TestWitnessNamesOrdersInWords(t *testing.T) {
	ops := []Op{left(op(1, 0, 10, OK), 4), left(op(2, 1, 11, OK), 4)}
	r := Check(ops, 5, time.Second)
	if !strings.HasPrefix(r.Message.En, "Orders 101 and 102 both left the stock at 4") ||
		!strings.HasPrefix(r.Message.Zh, "订单 101、102 写入后库存都是 4") || strings.Contains(r.Message.En+r.Message.Zh, "#") {
		t.Fatalf("got %q / %q", r.Message.En, r.Message.Zh)
	}
	ops = []Op{op(1, 0, 10, OK), op(2, 1, 11, OK), op(3, 2, 12, OK)}
	r = Check(ops, 2, time.Second)
	if !strings.Contains(r.Message.En, ": 101, 102 and 103 (3 ok answers") || !strings.Contains(r.Message.Zh, "：101、102、103（") {
		t.Fatalf("got %q / %q", r.Message.En, r.Message.Zh)
	}
}
