package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/runwire"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/internal/verdict"
)

// testDB is the package's database with no run left open: an interrupted
// earlier test run leaves running runs whose shares agents would claim.
func testDB(t *testing.T) *gorm.DB {
	t.Helper()
	db := testenv.DB(t, "runs")
	if err := db.Exec("UPDATE runs SET status = 'failed', error = 'left over by an earlier test' WHERE status IN ('queued', 'running')").Error; err != nil {
		t.Fatal(err)
	}
	return db
}

// salesFunc is a Sales made of a function.
type salesFunc func(ctx context.Context, spec sale.Spec) (inventory.Sale, error)

func (f salesFunc) Create(ctx context.Context, spec sale.Spec) (inventory.Sale, error) {
	return f(ctx, spec)
}

// saleMaker is the shop's sale service over db, with the backends of the
// strategies these tests' runs sell with.
func saleMaker(t *testing.T, db *gorm.DB) *sale.Service {
	t.Helper()
	return saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t), ZKServers: testenv.ZKServers(t)}, nil)
}

// agents returns n agent ids no other test (or earlier run) uses.
func agents(n int) []string {
	tag := rand.Uint32()
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("a%d-%08x", i, tag)
	}
	return out
}

// hist encodes n values of us microseconds.
func hist(t *testing.T, us int64, n int) string {
	t.Helper()
	h := hdrhistogram.New(1, 600_000_000, 3)
	if err := h.RecordValues(us, int64(n)); err != nil {
		t.Fatal(err)
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var cfg = Config{Strategy: "all", Strategies: []string{"none", "mutex"}, Stock: 10, Buyers: 101, Concurrency: 4}

// A run's life: shares split and claimed once each, reports merged as
// histograms, steps advancing on done, the run done after its last step.
func TestRunLifecycle(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(t, db))
	ag := agents(3)
	id, err := s.Create(ctx, cfg, ag[:2], []string{"http://a", "http://b"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.View(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != StatusRunning || v.Steps[0].Status != stepRunning || v.Steps[0].Sale == nil || v.Steps[1].Status != stepPending {
		t.Fatalf("after create: %+v", v)
	}
	// The step's sale is judged like every sale view: nothing sold, nothing overlapped.
	if v.Steps[0].Sale.Verdict.Kind != verdict.Holds || v.Steps[0].Sale.Verdict.ReasonZh == "" {
		t.Errorf("a new step's sale verdict %+v, want holds with its reasons", v.Steps[0].Sale.Verdict)
	}
	lc := &lifecycle{t: t, s: s, ctx: ctx, id: id}
	a0, a1 := lc.claimFirstStep(ag, v.Steps[0].SaleID)
	lc.refusedReports(a0, ag)
	lc.mergedFirstStep(a0, a1, ag)
	lc.lastStep(ag)
	list, err := s.List(ctx, 5)
	if err != nil || len(list) == 0 || list[0].ID < id {
		t.Fatalf("List newest first: %v %+v", err, list)
	}
}

// lifecycle is TestRunLifecycle's run: its service and id, and the steps
// its agents take.
type lifecycle struct {
	t   *testing.T
	s   *Service
	ctx context.Context
	id  uint64
}

// claim is agent's claim, which must be of this run's shares when it gets
// one.
func (l *lifecycle) claim(agent string) (runwire.Assignment, bool) {
	l.t.Helper()
	a, ok, err := l.s.Claim(l.ctx, agent)
	if err != nil {
		l.t.Fatal(err)
	}
	if ok && a.RunID != l.id {
		l.t.Fatalf("%s claimed a share of run %d, not of this test's run %d (a leftover run?)", agent, a.RunID, l.id)
	}
	return a, ok
}

// report sends agent's report on share a: every buyer answered in us
// microseconds, 5 orders, one lock timeout, the rest sold out.
func (l *lifecycle) report(a runwire.Assignment, agent string, us int64, done bool) error {
	_, err := l.s.Report(l.ctx, runwire.Report{RunID: a.RunID, Step: a.Step, Share: a.Share, AgentID: agent,
		Requests: int64(a.Buyers), Orders: 5, SoldOut: int64(a.Buyers) - 6, Errors: map[string]int64{"lock_timeout": 1},
		ElapsedMS: 1000, Histogram: hist(l.t, us, a.Buyers), Done: done})
	return err
}

// claimFirstStep has the two shares of step 0 (on sale saleID) claimed,
// one per agent: neither agent gets a second, the third gets none.
func (l *lifecycle) claimFirstStep(ag []string, saleID uint64) (a0, a1 runwire.Assignment) {
	t := l.t
	a0, ok0 := l.claim(ag[0])
	if _, again := l.claim(ag[0]); again {
		t.Fatal("one agent got two shares of one step")
	}
	a1, ok1 := l.claim(ag[1])
	if _, third := l.claim(ag[2]); third {
		t.Fatal("a third agent got a share of a 2-share step")
	}
	if !ok0 || !ok1 || a0.Share == a1.Share || a0.UserPrefix == a1.UserPrefix || a0.Buyers+a1.Buyers != 101 ||
		a0.SaleID != saleID || len(a0.Targets) != 2 || a0.Concurrency != 4 || a0.Deadline.IsZero() {
		t.Fatalf("claims: %+v / %+v", a0, a1)
	}
	return a0, a1
}

// refusedReports: a report on another agent's share, on no share, or with
// a bad histogram is refused.
func (l *lifecycle) refusedReports(a0 runwire.Assignment, ag []string) {
	t := l.t
	if err := l.report(a0, ag[1], 1000, false); !errors.Is(err, ErrNotYours) {
		t.Fatalf("report on another agent's share: %v", err)
	}
	if _, err := l.s.Report(l.ctx, runwire.Report{RunID: l.id, Step: 0, Share: 9, AgentID: ag[0]}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("report on no share: %v", err)
	}
	if _, err := l.s.Report(l.ctx, runwire.Report{RunID: l.id, Step: a0.Step, Share: a0.Share, AgentID: ag[0], Histogram: "junk"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("report with a bad histogram: %v", err)
	}
}

// mergedFirstStep finishes step 0 and checks its merged view. One share's
// buyers at 1 ms, the other's at 3 ms: the merged p99 is 3 ms. Averaging
// the shares' p99s would say 2 ms.
func (l *lifecycle) mergedFirstStep(a0, a1 runwire.Assignment, ag []string) {
	t := l.t
	if err := l.report(a0, ag[0], 1000, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := l.s.View(l.ctx, l.id); v.CurrentStep != 0 {
		t.Fatal("step advanced with a share not done")
	}
	if err := l.report(a1, ag[1], 3000, true); err != nil {
		t.Fatal(err)
	}
	v, err := l.s.View(l.ctx, l.id)
	if err != nil {
		t.Fatal(err)
	}
	st := v.Steps[0]
	c := st.Client
	if st.Status != stepDone || v.CurrentStep != 1 || v.Steps[1].Status != stepRunning || v.Steps[1].SaleID == st.SaleID {
		t.Fatalf("step 0 done should start step 1 with its own sale: %+v", v)
	}
	if c.Requests != 101 || c.Orders != 10 || c.Errors["lock_timeout"] != 2 || !near(c.LatencyMS.P50, 1) || !near(c.LatencyMS.P99, 3) ||
		c.RequestsPerS != 101 || len(st.Agents) != 2 || !near(st.Agents[1].P99MS, 3) || st.Agents[0].AgentID != ag[0] {
		t.Fatalf("merged client view: %+v agents %+v", c, st.Agents)
	}
}

// lastStep claims and finishes step 1: the run is then done.
func (l *lifecycle) lastStep(ag []string) {
	t := l.t
	b0, _ := l.claim(ag[0])
	b1, _ := l.claim(ag[1])
	if b0.Step != 1 || b1.Step != 1 {
		t.Fatalf("step 1 claims: %+v %+v", b0, b1)
	}
	_ = l.report(b0, ag[0], 500, true)
	_ = l.report(b1, ag[1], 500, true)
	if v, _ := l.s.View(l.ctx, l.id); v.Status != StatusDone || v.FinishedAt == nil {
		t.Fatalf("run not done after its last step: %+v", v)
	}
}

// Of many agents racing for the shares, each share goes to exactly one.
func TestConcurrentClaims(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(t, db))
	ag := agents(16)
	one := cfg
	one.Strategies = []string{"none"}
	id, err := s.Create(ctx, one, ag[:6], []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[int]string{}
	var wg sync.WaitGroup
	for _, agent := range ag {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, ok, err := s.Claim(ctx, agent)
			if err != nil {
				t.Error(err)
			}
			if ok && a.RunID == id {
				mu.Lock()
				defer mu.Unlock()
				if prev, dup := got[a.Share]; dup {
					t.Errorf("share %d claimed by %s and %s", a.Share, prev, agent)
				}
				got[a.Share] = agent
			}
		}()
	}
	wg.Wait()
	if len(got) != 6 {
		t.Fatalf("%d of 6 shares claimed: %v", len(got), got)
	}
}

// A step whose agents never finish ends at its deadline; a sale that cannot
// be made fails the run.
func TestDeadlineAndFailure(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(t, db))
	one := cfg
	one.Strategies = []string{"none"}
	id, err := s.Create(ctx, one, agents(2), []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	// Jump past the deadline instead of waiting 61 s.
	db.Exec("UPDATE run_steps SET deadline = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND WHERE run_id = ?", id)
	if v, err := s.View(ctx, id); err != nil || v.Status != StatusDone || v.Steps[0].Status != stepDone {
		t.Fatalf("past its deadline: %v %+v", err, v)
	}

	broken := New(db, salesFunc(func(context.Context, sale.Spec) (inventory.Sale, error) {
		return inventory.Sale{}, errors.New("zookeeper down")
	}))
	id, err = broken.Create(ctx, one, agents(1), []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.View(ctx, id); err != nil || v.Status != StatusFailed || v.Error == "" {
		t.Fatalf("sale maker failed: %v %+v", err, v)
	}
	if _, err := s.View(ctx, 1<<62); !errors.Is(err, ErrNotFound) {
		t.Fatalf("View of no run: %v", err)
	}
}

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		n, k int
		want []int
	}{{101, 2, []int{51, 50}}, {1, 3, []int{1, 0, 0}}, {9, 3, []int{3, 3, 3}}} {
		if got := split(c.n, c.k); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("split(%d, %d) = %v, want %v", c.n, c.k, got, c.want)
		}
	}
}

// near: within HDR's 3 significant digits.
func near(got, want float64) bool { return got >= want*0.995 && got <= want*1.005 }

// A stored config keeps its watchdog switch; one stored before the switch
// existed meant it on.
func TestConfigWatchdog(t *testing.T) {
	for stored, want := range map[string]bool{
		`{"strategy":"redis","ttl_ms":150}`:                  true,
		`{"strategy":"redis","ttl_ms":150,"watchdog":false}`: false,
		`{"strategy":"redis","ttl_ms":150,"watchdog":true}`:  true,
	} {
		var c Config
		if err := json.Unmarshal([]byte(stored), &c); err != nil || c.Watchdog != want || c.TTLMS != 150 {
			t.Errorf("%s: %+v, %v; want watchdog %v", stored, c, err, want)
		}
	}
	// Through the database: the view shows what Create stored.
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(t, db))
	off := cfg
	off.Watchdog = false
	id, err := s.Create(ctx, off, agents(1), []string{"http://x"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.View(ctx, id)
	if err != nil || v.Config.Watchdog {
		t.Fatalf("view %+v, %v: want watchdog off", v.Config, err)
	}
	if err := db.Exec("UPDATE runs SET status = 'failed' WHERE id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
}

// A step's deadline is a stall deadline: a report that shows progress (more
// requests answered than the share's last report) pushes it to at least
// StallGrace from now, so a slow but live step is never cut short; a report
// without progress does not, and a step already past its deadline stays
// closed. The agent learns the deadline from the report's answer.
func TestProgressExtendsDeadline(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	s := New(db, saleMaker(t, db))
	one := cfg
	one.Strategies = []string{"none"}
	ag := agents(1)
	id, err := s.Create(ctx, one, ag, []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	a, ok, err := s.Claim(ctx, ag[0])
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	// The initial deadline almost over: as if the step ran slowly so far.
	if err := db.Exec("UPDATE run_steps SET deadline = UTC_TIMESTAMP(6) + INTERVAL 2 SECOND WHERE run_id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
	deadline := func() (d time.Time, left time.Duration) {
		t.Helper()
		var r struct {
			Deadline time.Time
			Left     float64
		}
		if err := db.Raw("SELECT deadline, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), deadline) / 1e6 AS `left` FROM run_steps WHERE run_id = ? AND step = 0", id).
			Scan(&r).Error; err != nil {
			t.Fatal(err)
		}
		return r.Deadline, time.Duration(r.Left * float64(time.Second))
	}
	report := func(requests int64) runwire.Ack {
		t.Helper()
		ack, err := s.Report(ctx, runwire.Report{RunID: id, Step: a.Step, Share: a.Share, AgentID: ag[0], Requests: requests, Errors: map[string]int64{"x": requests}})
		if err != nil {
			t.Fatal(err)
		}
		return ack
	}
	ack := report(5)
	d, left := deadline()
	if left < StallGrace-10*time.Second || !ack.Deadline.Equal(d) {
		t.Fatalf("after progress: %v left (want about %v), ack says %v, row %v", left, StallGrace, ack.Deadline, d)
	}
	// No progress: the deadline stays where it is.
	if err := db.Exec("UPDATE run_steps SET deadline = UTC_TIMESTAMP(6) + INTERVAL 2 SECOND WHERE run_id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
	report(5)
	if _, left := deadline(); left > 3*time.Second {
		t.Fatalf("a report without progress moved the deadline: %v left", left)
	}
	// Past its deadline the step is closed for good, whatever comes later.
	if err := db.Exec("UPDATE run_steps SET deadline = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND WHERE run_id = ?", id).Error; err != nil {
		t.Fatal(err)
	}
	report(9)
	if _, left := deadline(); left > 0 {
		t.Fatalf("a late report revived a closed step: %v left", left)
	}
}

// A step's sale is the run's sale members under the step's strategy,
// named after it.
func TestStepSpec(t *testing.T) {
	cfg := Config{Stock: 7, WorkMS: 3, TTLMS: 900, Fencing: true, Watchdog: true, PerUserLimit: 2}
	s := StepSpec("mutex", cfg)
	if *s.Name != "run mutex" || *s.Strategy != "mutex" || *s.Stock != 7 || *s.WorkMS != 3 || *s.TTLMS != 900 ||
		!*s.Fencing || *s.PerUserLimit != 2 || s.Watchdog != nil {
		t.Fatalf("step spec %+v does not carry the run's members", s)
	}
}

// A run whose sales open later hands its agents the opening (they connect
// first and fire at it) and the ticket rule, and its step's first deadline
// counts the wait for the opening.
func TestAssignmentCarriesTheOpening(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	sales := saleMaker(t, db)
	var opening time.Time // the step's sale's, once made
	maker := salesFunc(func(ctx context.Context, spec sale.Spec) (inventory.Sale, error) {
		if spec.OpensInMS == nil || *spec.OpensInMS != 600_000 || spec.TicketRequired == nil || !*spec.TicketRequired {
			return inventory.Sale{}, fmt.Errorf("the step's sale spec lost the guards: %+v", spec)
		}
		s, err := sales.Create(ctx, spec)
		opening = s.OpensAt
		return s, err
	})
	s := New(db, maker)
	one := cfg
	one.Strategies, one.OpensInMS, one.TicketRequired = []string{"none"}, 600_000, true
	ag := agents(1)
	id, err := s.Create(ctx, one, ag, []string{"http://a"})
	if err != nil {
		t.Fatal(err)
	}
	a, ok, err := s.Claim(ctx, ag[0])
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if !a.OpensAt.Equal(opening) || !a.TicketRequired {
		t.Fatalf("assignment opens at %v (want %v), ticket_required %v", a.OpensAt, opening, a.TicketRequired)
	}
	if least := opening.Add(StepDeadline(a.Buyers)).Add(-time.Minute); a.Deadline.Before(least) {
		t.Fatalf("step %d's deadline %v ends before its opening %v plus the step's time", id, a.Deadline, opening)
	}
}
