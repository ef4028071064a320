package lessondb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// runningRun is a lesson run of its own database (seckill_test_lessondb),
// claimed by a new agent, with no run left open by an earlier test.
func runningRun(t *testing.T) (*lessondb.Store, catalogue.Run, string) {
	t.Helper()
	db := testenv.DB(t, "lessondb")
	closeOpen := func() {
		if err := db.Exec("UPDATE lesson_runs SET status = 'done', verdict = 'ERROR' WHERE status <> 'done'").Error; err != nil {
			t.Fatal(err)
		}
	}
	closeOpen()
	t.Cleanup(closeOpen)
	s := lessondb.NewStore(db)
	ctx := context.Background()
	queued, err := s.Create(ctx, "mutex-across-replicas", catalogue.PaceClass)
	if err != nil {
		t.Fatal(err)
	}
	agent := fmt.Sprintf("t-agent-%08x", rand.Uint32())
	run, ok, err := s.Claim(ctx, agent)
	if err != nil || !ok || run.ID != queued.ID {
		t.Fatalf("claim: %+v ok %v err %v, want run %d", run, ok, err, queued.ID)
	}
	return s, run, agent
}

// While a class-paced lesson runs, the agent records what the next case
// shows (both languages, when it starts) with the sales; a report without
// one keeps it, a newer one replaces it, a bad one or another agent's
// changes nothing, and the run's end clears it.
func TestSetProgressRecordsTheNextCase(t *testing.T) {
	s, run, agent := runningRun(t)
	p := &progressRun{t: t, s: s, ctx: context.Background(), id: run.ID, agent: agent}
	if r := p.get(); r.Next != nil || !strings.Contains(jsonOf(t, r), `"next":null`) {
		t.Fatalf("a new run's next: %+v, json %s; want null", r.Next, jsonOf(t, r))
	}
	next := p.recordsTheNext()
	p.salesKeepTheNext(next)
	p.refusalsChangeNothing(next)
	p.newerReplacesAndIsClipped(next)
	p.endClearsTheNext(next)
}

// progressRun is a running lesson run of TestSetProgressRecordsTheNextCase
// and its agent.
type progressRun struct {
	t     *testing.T
	s     *lessondb.Store
	ctx   context.Context
	id    uint64
	agent string
}

func (p *progressRun) get() catalogue.Run {
	p.t.Helper()
	r, err := p.s.Get(p.ctx, p.id)
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

// recordsTheNext reports sale 5 with a next case, in another zone than
// UTC: the run keeps it in UTC and says it in its JSON.
func (p *progressRun) recordsTheNext() catalogue.Next {
	t := p.t
	at := time.Now().Add(5 * time.Second).In(time.FixedZone("CET", 3600)).Round(time.Microsecond)
	next := catalogue.Next{En: "the same buyers on db-pessimistic, which locks the row: watch them wait in turn",
		Zh: "同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁", At: at}
	if err := p.s.SetProgress(p.ctx, p.id, p.agent, catalogue.SaleIDs{5}, &next); err != nil {
		t.Fatal(err)
	}
	r := p.get()
	if r.Next == nil || r.Next.En != next.En || r.Next.Zh != next.Zh || !r.Next.At.Equal(at) || r.Next.At.Location() != time.UTC {
		t.Fatalf("next %+v, want %+v in UTC", r.Next, next)
	}
	if fmt.Sprint(r.Sales) != "[5]" {
		t.Fatalf("sales %v, want [5]", r.Sales)
	}
	var wire struct {
		Next map[string]string `json:"next"`
	}
	if err := json.Unmarshal([]byte(jsonOf(t, r)), &wire); err != nil || wire.Next["en"] != next.En || wire.Next["zh"] != next.Zh ||
		wire.Next["at"] != at.UTC().Format(time.RFC3339Nano) {
		t.Fatalf("json next %v (%v), want en, zh and at %s", wire.Next, err, at.UTC().Format(time.RFC3339Nano))
	}
	return next
}

// salesKeepTheNext: sales alone keep the next; the same report twice
// changes no row and is still the agent's.
func (p *progressRun) salesKeepTheNext(next catalogue.Next) {
	t := p.t
	for range 2 {
		if err := p.s.SetProgress(p.ctx, p.id, p.agent, catalogue.SaleIDs{5, 6}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if r := p.get(); r.Next == nil || r.Next.En != next.En || fmt.Sprint(r.Sales) != "[5 6]" {
		t.Fatalf("after sales alone: next %+v sales %v", r.Next, r.Sales)
	}
	if err := p.s.SetSales(p.ctx, p.id, p.agent, catalogue.SaleIDs{5, 6, 7}); err != nil {
		t.Fatal(err)
	}
	if r := p.get(); r.Next == nil || fmt.Sprint(r.Sales) != "[5 6 7]" {
		t.Fatalf("after SetSales: next %+v sales %v", r.Next, r.Sales)
	}
}

// refusalsChangeNothing: another agent's next and a next without one of
// its members are refused, and change nothing.
func (p *progressRun) refusalsChangeNothing(next catalogue.Next) {
	t, at := p.t, next.At
	newer := catalogue.Next{En: "the fix", Zh: "修复", At: at.Add(30 * time.Second)}
	if err := p.s.SetProgress(p.ctx, p.id, "someone-else", catalogue.SaleIDs{9}, &newer); !errors.Is(err, lessondb.ErrNotYours) {
		t.Fatalf("another agent's next: %v, want ErrNotYours", err)
	}
	for _, bad := range []catalogue.Next{{En: "x", At: at}, {Zh: "x", At: at}, {En: "x", Zh: "x"}} {
		if err := p.s.SetProgress(p.ctx, p.id, p.agent, catalogue.SaleIDs{9}, &bad); !errors.Is(err, lessondb.ErrNext) {
			t.Fatalf("next %+v: %v, want ErrNext", bad, err)
		}
	}
	if r := p.get(); r.Next == nil || r.Next.En != next.En || fmt.Sprint(r.Sales) != "[5 6 7]" {
		t.Fatalf("after the refusals: next %+v sales %v, want both unchanged", r.Next, r.Sales)
	}
}

// newerReplacesAndIsClipped: a newer next replaces the older; a sentence
// past the bound is clipped on a character.
func (p *progressRun) newerReplacesAndIsClipped(next catalogue.Next) {
	t := p.t
	newer := catalogue.Next{En: "the fix", At: next.At.Add(30 * time.Second)}
	newer.Zh = strings.Repeat("锁", lessondb.MaxNextText) // 3 bytes each
	if err := p.s.SetProgress(p.ctx, p.id, p.agent, catalogue.SaleIDs{5, 6, 7}, &newer); err != nil {
		t.Fatal(err)
	}
	if r := p.get(); r.Next == nil || r.Next.En != "the fix" || !r.Next.At.Equal(newer.At) ||
		len(r.Next.Zh) > lessondb.MaxNextText || !strings.HasPrefix(newer.Zh, r.Next.Zh) || r.Next.Zh == "" {
		t.Fatalf("after a newer next: %+v", r.Next)
	}
}

// endClearsTheNext: the run's end clears the next, and a next after it is
// refused.
func (p *progressRun) endClearsTheNext(next catalogue.Next) {
	t := p.t
	if err := p.s.Finish(p.ctx, p.id, p.agent, lessondb.Result{Verdict: catalogue.VerdictPass}); err != nil {
		t.Fatal(err)
	}
	if r := p.get(); r.Next != nil || r.Status != catalogue.StatusDone || !strings.Contains(jsonOf(t, r), `"next":null`) {
		t.Fatalf("after the result: status %s next %+v", r.Status, r.Next)
	}
	if err := p.s.SetProgress(p.ctx, p.id, p.agent, catalogue.SaleIDs{5}, &next); !errors.Is(err, lessondb.ErrNotYours) {
		t.Fatalf("a next after the end: %v, want ErrNotYours", err)
	}
	if r := p.get(); r.Next != nil {
		t.Fatalf("a next after the end was kept: %+v", r.Next)
	}
}

// A run whose agent never reported expires, and its next goes with it.
func TestExpiryClearsTheNextCase(t *testing.T) {
	s, run, agent := runningRun(t)
	ctx := context.Background()
	next := catalogue.Next{En: "the fix", Zh: "修复", At: time.Now().Add(5 * time.Second)}
	if err := s.SetProgress(ctx, run.ID, agent, catalogue.SaleIDs{1}, &next); err != nil {
		t.Fatal(err)
	}
	db := testenv.DB(t, "lessondb")
	if err := db.Exec("UPDATE lesson_runs SET deadline = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND WHERE id = ?", run.ID).Error; err != nil {
		t.Fatal(err)
	}
	last, err := s.Last(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := last[run.Lesson]
	if r.ID != run.ID || r.Status != catalogue.StatusDone || r.Verdict != catalogue.VerdictError || r.Next != nil {
		t.Fatalf("expired run: id %d status %s verdict %s next %+v; want run %d done, ERROR, no next", r.ID, r.Status, r.Verdict, r.Next, run.ID)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
