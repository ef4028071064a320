package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	alllessons "github.com/seckill-lab/seckill/loadtest/lessons/all"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// lessonClaim is the answer of POST /api/agents/lesson-claim.
type lessonClaim struct {
	Run     catalogue.Run `json:"run"`
	Targets []string      `json:"targets"`
}

// lessonTimeout bounds one lesson on the agent's side, under the shop's
// catalogue.RunTimeout so that the verdict still counts.
const lessonTimeout = catalogue.RunTimeout - 15*time.Second

// claimLesson asks for a lesson run the dashboard queued and, when there is
// one, runs its scenario against the live replicas and reports the verdict.
// It says whether it ran one.
func claimLesson(ctx context.Context, ctl *control, id string, stdout, stderr io.Writer) bool {
	var cl lessonClaim
	status, err := ctl.call(ctx, http.MethodPost, "/api/agents/lesson-claim", map[string]string{"agent_id": id}, &cl)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(stderr, "agent %s: lesson claim: %v\n", id, err)
		}
		return false
	}
	if status != http.StatusOK {
		return false
	}
	salesPath := "/api/lesson-runs/" + strconv.FormatUint(cl.Run.ID, 10) + "/sales"
	sales, next, stopProgress := reportProgress(ctx, func(ctx context.Context, p lessonProgress) {
		body := map[string]any{"agent_id": id, "sales": p.Sales}
		if p.Next != nil {
			body["next"] = p.Next
		}
		status, err := ctl.call(ctx, http.MethodPost, salesPath, body, nil)
		if status == http.StatusBadRequest && p.Next != nil {
			// An older shop knows no next (or this one refused it: the
			// clocks too far apart): the sales still go through.
			fmt.Fprintf(stderr, "agent %s: lesson %d next: %v\n", id, cl.Run.ID, err)
			delete(body, "next")
			_, err = ctl.call(ctx, http.MethodPost, salesPath, body, nil)
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "agent %s: lesson %d sales: %v\n", id, cl.Run.ID, err)
		}
	})
	res := runLesson(ctx, cl, ctl.c.Token, sales, next, stdout)
	stopProgress()
	fmt.Fprintf(stdout, "agent %s: lesson %s (run %d): %s\n", id, cl.Run.Lesson, cl.Run.ID, res.verdict)
	body := map[string]any{"agent_id": id, "verdict": res.verdict, "observed": res.observed, "output": res.output,
		"cases": res.cases, "sales": res.sales}
	path := "/api/lesson-runs/" + strconv.FormatUint(cl.Run.ID, 10) + "/result"
	// The lesson may have killed the replica we talk to: ctl moves on.
	bye, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*agentCallTimeout)
	defer cancel()
	if _, err := ctl.call(bye, http.MethodPost, path, body, nil); err != nil {
		fmt.Fprintf(stderr, "agent %s: lesson %d result: %v\n", id, cl.Run.ID, err)
	}
	return true
}

// lessonResult is what the agent reports when a lesson ends.
type lessonResult struct {
	verdict, observed, output string
	cases                     catalogue.Cases
	sales                     []uint64
}

// runLesson runs the claimed lesson's scenario with the agent's admin token
// (lessons create sales and inject faults) at the pace the run asks for;
// onSales is told the sales the scenario created so far, each time one is
// added, and onNext what the next case shows, at the class pace's pause
// before it. The result carries the table of its sales.
func runLesson(ctx context.Context, cl lessonClaim, token string, onSales func([]uint64), onNext func(catalogue.Next), stdout io.Writer) lessonResult {
	var s *lessons.Scenario
	for i := range alllessons.Scenarios {
		if alllessons.Scenarios[i].Name == cl.Run.Lesson {
			s = &alllessons.Scenarios[i]
		}
	}
	if s == nil {
		return lessonResult{verdict: catalogue.VerdictError, observed: "this agent has no scenario " + cl.Run.Lesson + " (an older build?)"}
	}
	ctx, cancel := context.WithTimeout(ctx, lessonTimeout)
	defer cancel()
	c := shopapi.NewClient(64, 30*time.Second, token)
	defer c.Close()
	targets := answering(ctx, c, cl.Targets)
	if len(targets) == 0 {
		return lessonResult{verdict: catalogue.VerdictError,
			observed: fmt.Sprintf("none of the %d replicas listed alive answers GET /healthz", len(cl.Targets))}
	}
	pace := cl.Run.Pace
	if pace == "" {
		pace = catalogue.PaceNormal // an older shop sends none
	}
	var out bytes.Buffer
	sc := lessons.NewScenarioRun(c, targets, pace, onSales, onNext)
	r := lessonResult{}
	r.verdict, r.observed = lessons.RunOne(ctx, sc, *s, io.MultiWriter(&out, stdout))
	// The table is read even when the lesson ran out of time: what it did
	// is still the database's.
	tctx, tcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer tcancel()
	r.cases, r.sales, r.output = sc.Cases(tctx), sc.Sales(), out.String()
	return r
}

// lessonProgress is what the agent reports while a lesson runs (POST
// /api/lesson-runs/{id}/sales): the sales the scenario created so far and,
// once the class pace has paused before a case, what that case shows.
type lessonProgress struct {
	Sales []uint64
	Next  *catalogue.Next
}

// reportProgress sends the newest progress through send, one call at a
// time, never blocking the scenario: sales and next each update it (a
// progress given while a call is under way replaces any older one
// waiting, and carries both the newest sales and the newest next). stop
// sends the last one and waits.
func reportProgress(ctx context.Context, send func(context.Context, lessonProgress)) (sales func([]uint64), next func(catalogue.Next), stop func()) {
	latest := make(chan lessonProgress, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for p := range latest {
			cctx, cancel := context.WithTimeout(ctx, 3*agentCallTimeout)
			send(cctx, p)
			cancel()
		}
	}()
	var mu sync.Mutex
	closed := false
	cur := lessonProgress{Sales: []uint64{}} // never null: the shop requires the list
	give := func(update func(*lessonProgress)) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		update(&cur)
		select {
		case <-latest: // drop the older progress not yet sent
		default:
		}
		latest <- cur
	}
	sales = func(list []uint64) {
		give(func(p *lessonProgress) { p.Sales = append([]uint64{}, list...) })
	}
	next = func(n catalogue.Next) {
		give(func(p *lessonProgress) { p.Next = &n })
	}
	stop = func() {
		mu.Lock()
		closed = true
		close(latest)
		mu.Unlock()
		<-done
	}
	return sales, next, stop
}

// answering keeps the targets that answer GET /healthz now. Discovery lists
// a replica killed without a goodbye (some lessons kill one) as alive until
// its heartbeat expires; a lesson must not pick it.
func answering(ctx context.Context, c *shopapi.Client, targets []string) []string {
	var live []string
	for _, t := range targets {
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var health map[string]any
		_, err := c.CallJSON(hctx, http.MethodGet, t+"/healthz", nil, http.StatusOK, &health)
		cancel()
		if err == nil {
			live = append(live, t)
		}
	}
	return live
}
