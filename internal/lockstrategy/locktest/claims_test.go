package locktest

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/claims"
)

func res(name string, ops int64) Result {
	return Result{Strategy: name, Contenders: 64, Work: 0, Ops: ops, Elapsed: time.Second}
}

// Each round's result of a strategy is one of its runs: three rounds far
// apart decide, one round decides nothing, other contenders do not count.
func TestClaimsJudgeTheRounds(t *testing.T) {
	var three []Result
	for _, d := range []int64{-50, 0, 50} {
		three = append(three, res("redis", 3000+d), res("zookeeper", 800+d), res("db-pessimistic", 500+d))
	}
	for _, tc := range []struct {
		name string
		rs   []Result
		rank string
	}{
		{"three rounds, clear gaps", three, claims.Holds},
		{"one round", []Result{res("redis", 3000), res("zookeeper", 800), res("db-pessimistic", 500)}, claims.Inconclusive},
		{"other contenders only", []Result{{Strategy: "redis", Contenders: 16, Ops: 10, Elapsed: time.Second}}, claims.NotMeasured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Claims(tc.rs, 64, 0, claims.Figures{})
			if c[0].Verdict != tc.rank {
				t.Fatalf("ranking %q, want %q (%+v)", c[0].Verdict, tc.rank, c[0])
			}
		})
	}
}

// The Redis commands a case counted are the claims' commands per
// acquisition, in the same rounds as its sections per second; a case
// that counted none gives none.
func TestClaimsCountCommandsPerAcquisition(t *testing.T) {
	var rs []Result
	for _, d := range []int64{-50, 0, 50} {
		poll, fifo := res("redis-no-owner", 1000+d), res("redis", 3000+d)
		poll.Commands, fifo.Commands = 20*poll.Ops, 3*fifo.Ops
		rs = append(rs, poll, fifo, res("zookeeper", 800+d))
	}
	c := Claims(rs, 64, 0, claims.Figures{})[4]
	if c.Verdict != claims.Holds || !strings.Contains(c.Measured, "redis-no-owner 20.0 commands (20.0-20.0, 3 runs), redis 3.0 commands") {
		t.Fatalf("polling: %+v", c)
	}
}
