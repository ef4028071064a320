package history

import (
	"math/rand/v2"
	"testing"
	"time"
)

// saleOf2000 is a locked sale's history: 2,000 orders on a stock of 1,000,
// one section a millisecond, each buyer having waited up to 50 ms for the
// lock (about 50 requests in flight at any time), one in a hundred answered
// unknown.
func saleOf2000() []Op {
	r := rand.New(rand.NewPCG(1, 2))
	ops := make([]Op, 0, 2000)
	for i := range 2000 {
		section := i * 1000 // microseconds
		call := section - r.IntN(50_000)
		outcome := OK
		if i >= 1000 {
			outcome = SoldOut
		}
		if i%100 == 7 {
			outcome = Unknown
		}
		o := Op{ID: uint64(i + 1), SaleID: 1, ReplicaID: "r1", Outcome: outcome,
			CallAt:   t0.Add(time.Duration(call) * time.Microsecond),
			ReturnAt: t0.Add(time.Duration(section+500) * time.Microsecond)}
		if outcome == OK {
			id := uint64(i + 1)
			o.OrderID = &id
		}
		ops = append(ops, o)
	}
	return ops
}

// BenchmarkCheck2000Orders: the target is <= 5 s per check.
func BenchmarkCheck2000Orders(b *testing.B) {
	ops := saleOf2000()
	for b.Loop() {
		if r := Check(ops, 1000, time.Minute); r.Verdict != Linearizable {
			b.Fatalf("got %s: %s", r.Verdict, r.Message.En)
		}
	}
}
