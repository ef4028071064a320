package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/internal/runwire"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// deadFor: a target that failed at the transport level is skipped for this
// long, then tried again (it may have been a reset, not a death).
const deadFor = time.Second

// targets spreads buyers round robin over the share's shop replicas,
// skipping those that recently failed to answer: orders meant for a dead
// replica go to the live ones instead of piling up as errors.
type targets struct {
	urls      []string // order URLs, one per replica
	mu        sync.Mutex
	deadUntil []time.Time
}

func newTargets(bases []string, saleID uint64) *targets {
	t := &targets{deadUntil: make([]time.Time, len(bases))}
	for _, b := range bases {
		t.urls = append(t.urls, b+"/api/sales/"+strconv.FormatUint(saleID, 10)+"/orders")
	}
	return t
}

// pick returns the index of the target of buyer i: i mod n, or the next
// live one after it. With every target dead, i mod n anyway.
func (t *targets) pick(i int) int {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.urls)
	for k := range n {
		j := (i + k) % n
		if !now.Before(t.deadUntil[j]) {
			return j
		}
	}
	return i % n
}

func (t *targets) failed(j int) {
	t.mu.Lock()
	t.deadUntil[j] = time.Now().Add(deadFor)
	t.mu.Unlock()
}

// execute runs share a: the buyers against its targets until done or the
// step's deadline, reporting every second and once more at the end. The
// deadline is the one the shop answers each report with: it moves on while
// the share makes progress.
func execute(ctx context.Context, ctl *control, agentID string, a runwire.Assignment, stderr io.Writer) runwire.Report {
	ts := newTargets(a.Targets, a.SaleID)
	p := load.Plan{Requests: a.Buyers, Workers: max(a.Concurrency, 1)}
	if a.Rate > 0 {
		p.Rate, p.Workers = a.Rate, agentOpenWorkers
	}
	sender, err := shopapi.NewOrderSender(ts.urls, p.Workers, agentOrderTO)
	if err != nil { // the shop gave the targets; a bad one is its bug, reported like a dead target
		fmt.Fprintf(stderr, "agent %s: share targets: %v\n", agentID, err)
		return runwire.Report{AgentID: agentID, Errors: map[string]int64{}, Done: true}
	}
	defer sender.Close()
	b := load.NewBuyer(sender, a.Targets, a.SaleID, a.UserPrefix, a.TicketRequired)
	do := func(_ context.Context, i int) shopapi.Answer {
		j := ts.pick(i)
		ans := b.Attempt(j, i)
		if ans.Kind == shopapi.KindTransport {
			ts.failed(j)
		}
		return ans
	}
	if !a.OpensAt.IsZero() {
		p.Start, p.Warm = a.OpensAt, b.Warm
	}
	loadCtx, dl := withMovingDeadline(ctx, a.Deadline)
	defer dl.stop()
	rec := load.NewRecorder()
	start := time.Now()
	path := fmt.Sprintf("/api/runs/%d/steps/%d/shares/%d/report", a.RunID, a.Step, a.Share)
	send := func(ctx context.Context, r runwire.Report) {
		var ack runwire.Ack
		if _, err := ctl.call(ctx, http.MethodPost, path, r, &ack); err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(stderr, "agent %s: report: %v\n", agentID, err)
			}
			return
		}
		dl.move(ack.Deadline) // progress pushed the step's deadline on
	}

	stop := make(chan struct{})
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		tick := time.NewTicker(agentReportEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				send(ctx, snapshotReport(agentID, rec, time.Since(start), false))
			}
		}
	}()
	elapsed := load.Drive(loadCtx, p, do, rec)
	close(stop)
	<-reported
	// The final report goes out even when the agent is being stopped: the
	// figures are real and the step should not wait for its deadline.
	final := snapshotReport(agentID, rec, elapsed, true)
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*agentCallTimeout)
	defer cancel()
	send(fctx, final)
	return final
}

// snapshotReport is the recorder's figures as a report.
func snapshotReport(agentID string, rec *load.Recorder, elapsed time.Duration, done bool) runwire.Report {
	f := rec.Figures()
	hist, kinds := f.All.Hist, f.All.Kinds
	r := runwire.Report{AgentID: agentID, Errors: map[string]int64{}, ElapsedMS: elapsed.Milliseconds(), Done: done,
		Layers: f.All.Layers}
	for k, n := range kinds {
		r.Requests += n
		switch k {
		case shopapi.KindOrder:
			r.Orders += n
		case shopapi.KindAccepted:
			// A 202 of an async sale: the unit is the buyer's, its order is
			// made behind the queue (the sale's queue figures say how many
			// were). The run counts it with the orders, and apart.
			r.Orders += n
			r.Accepted = n
		case shopapi.KindSoldOut:
			r.SoldOut = n
		default:
			r.Errors[k] = n
		}
	}
	if enc, err := hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		r.Histogram = string(enc)
	}
	return r
}

// movingDeadline cancels a context at a deadline that can be moved.
type movingDeadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelFunc
}

// withMovingDeadline is ctx cancelled at deadline (never, if zero) or when
// stop is called; move sets a new deadline (a zero one is ignored).
func withMovingDeadline(ctx context.Context, deadline time.Time) (context.Context, *movingDeadline) {
	cctx, cancel := context.WithCancel(ctx)
	m := &movingDeadline{cancel: cancel}
	if !deadline.IsZero() {
		m.timer = time.AfterFunc(time.Until(deadline), cancel)
	}
	return cctx, m
}

func (m *movingDeadline) move(deadline time.Time) {
	if deadline.IsZero() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.timer == nil {
		m.timer = time.AfterFunc(time.Until(deadline), m.cancel)
		return
	}
	// A timer that has fired has cancelled for good: Reset would only call
	// cancel again later, which changes nothing.
	m.timer.Reset(time.Until(deadline))
}

func (m *movingDeadline) stop() {
	m.mu.Lock()
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.cancel()
}
