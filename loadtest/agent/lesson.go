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

	catalogue "github.com/seckill-lab/seckill/internal/lessons"
	"github.com/seckill-lab/seckill/loadtest/lessons"
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
	sales, stopSales := reportSales(ctx, func(ctx context.Context, list []uint64) {
		body := map[string]any{"agent_id": id, "sales": list}
		if _, err := ctl.call(ctx, http.MethodPost, salesPath, body, nil); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "agent %s: lesson %d sales: %v\n", id, cl.Run.ID, err)
		}
	})
	res := runLesson(ctx, cl, ctl.c.Token, sales, stdout)
	stopSales()
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
// added. The result carries the table of its sales.
func runLesson(ctx context.Context, cl lessonClaim, token string, onSales func([]uint64), stdout io.Writer) lessonResult {
	var s *lessons.Scenario
	for i := range lessons.Scenarios {
		if lessons.Scenarios[i].Name == cl.Run.Lesson {
			s = &lessons.Scenarios[i]
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
	sc := lessons.NewScenarioRun(c, targets, pace, onSales)
	r := lessonResult{}
	r.verdict, r.observed = lessons.RunOne(ctx, sc, *s, io.MultiWriter(&out, stdout))
	// The table is read even when the lesson ran out of time: what it did
	// is still the database's.
	tctx, tcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer tcancel()
	r.cases, r.sales, r.output = sc.Cases(tctx), sc.Sales(), out.String()
	return r
}

// reportSales sends the newest list of sales it is given through send, one
// call at a time, never blocking the scenario (a list given while a call
// is under way replaces any older one waiting). stop sends the last one
// and waits.
func reportSales(ctx context.Context, send func(context.Context, []uint64)) (give func([]uint64), stop func()) {
	latest := make(chan []uint64, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for list := range latest {
			cctx, cancel := context.WithTimeout(ctx, 3*agentCallTimeout)
			send(cctx, list)
			cancel()
		}
	}()
	var mu sync.Mutex
	closed := false
	give = func(list []uint64) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case <-latest: // drop the older list not yet sent
		default:
		}
		latest <- list
	}
	stop = func() {
		mu.Lock()
		closed = true
		close(latest)
		mu.Unlock()
		<-done
	}
	return give, stop
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
