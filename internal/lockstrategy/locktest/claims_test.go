package locktest

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/claims"
)

const (
	Holds       = claims.Holds
	DoesNotHold = claims.DoesNotHold
	NotMeasured = claims.NotMeasured
)

func res(name string, ops int64) Result {
	return Result{Strategy: name, Contenders: 64, Work: 0, Ops: ops, Elapsed: time.Second}
}

func TestClaimsVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rs            []Result
		rank, ceiling string
	}{
		{"as the seed says", []Result{res("redis", 3000), res("zookeeper", 800), res("db-pessimistic", 500), res("db-lock-table", 200)}, Holds, Holds},
		{"zookeeper below the database", []Result{res("redis", 3000), res("zookeeper", 300), res("db-pessimistic", 500)}, DoesNotHold, Holds},
		{"redis below zookeeper", []Result{res("redis", 700), res("zookeeper", 800), res("db-lock-table", 200)}, DoesNotHold, Holds},
		{"a database lock past 1k", []Result{res("redis", 3000), res("zookeeper", 2000), res("db-pessimistic", 1500)}, Holds, DoesNotHold},
		{"no zookeeper run", []Result{res("redis", 3000), res("db-pessimistic", 500)}, NotMeasured, Holds},
		{"no database lock", []Result{res("redis", 3000), res("zookeeper", 800)}, NotMeasured, NotMeasured},
		{"other contenders only", []Result{{Strategy: "redis", Contenders: 16, Ops: 10, Elapsed: time.Second}}, NotMeasured, NotMeasured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Claims(tc.rs, 64, 0)
			if len(c) != 2 || c[0].Verdict != tc.rank || c[1].Verdict != tc.ceiling {
				t.Fatalf("verdicts %q / %q, want %q / %q (%+v)", c[0].Verdict, c[1].Verdict, tc.rank, tc.ceiling, c)
			}
		})
	}
}
