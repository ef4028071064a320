package runs

import (
	"context"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/claims"
	"github.com/seckill-lab/seckill/internal/runwire"
)

// The claims are judged on the newest finished run that has redis,
// zookeeper and a database lock, from each step's orders per second (the
// agents' reports), and the conditions name that run.
func TestClaimsOnTheNewestRunWithTheirStrategies(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(db))
	ag := agents(1)
	c := Config{Strategy: "redis,zookeeper,db-pessimistic", Strategies: []string{"redis", "zookeeper", "db-pessimistic"},
		Stock: 500, Buyers: 10, Concurrency: 2, WorkMS: 1}
	id, err := s.Create(ctx, c, ag, []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, orders := range []int64{300, 200, 1200} { // redis, zookeeper, db-pessimistic: per 1 s
		a, ok, err := s.Claim(ctx, ag[0])
		if err != nil || !ok || a.RunID != id {
			t.Fatalf("claim: %+v %v %v", a, ok, err)
		}
		if _, err := s.Report(ctx, runwire.Report{RunID: id, Step: a.Step, Share: a.Share, AgentID: ag[0],
			Requests: orders, Orders: orders, ElapsedMS: 1000, Histogram: hist(t, 1000, 10), Done: true}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := s.Claims(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.RunID != id || !strings.Contains(v.Conditions, "run #") || len(v.Claims) != 2 {
		t.Fatalf("claims view %+v, want run %d", v, id)
	}
	// zookeeper 200/s < db-pessimistic 1,200/s: the ranking does not hold,
	// and a database lock past 1k breaks the ceiling.
	if v.Claims[0].Verdict != claims.DoesNotHold || v.Claims[1].Verdict != claims.DoesNotHold ||
		!strings.Contains(v.Claims[0].Measured, "redis 300/s, zookeeper 200/s, db-pessimistic 1200/s") {
		t.Fatalf("verdicts: %+v", v.Claims)
	}
}
