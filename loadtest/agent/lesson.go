package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
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
	verdict, observed, output := runLesson(ctx, cl, ctl.c.Token, stdout)
	fmt.Fprintf(stdout, "agent %s: lesson %s (run %d): %s\n", id, cl.Run.Lesson, cl.Run.ID, verdict)
	body := map[string]string{"agent_id": id, "verdict": verdict, "observed": observed, "output": output}
	path := "/api/lesson-runs/" + strconv.FormatUint(cl.Run.ID, 10) + "/result"
	// The lesson may have killed the replica we talk to: ctl moves on.
	bye, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*agentCallTimeout)
	defer cancel()
	if _, err := ctl.call(bye, http.MethodPost, path, body, nil); err != nil {
		fmt.Fprintf(stderr, "agent %s: lesson %d result: %v\n", id, cl.Run.ID, err)
	}
	return true
}

// runLesson runs the claimed lesson's scenario with the agent's admin token
// (lessons create sales and inject faults).
func runLesson(ctx context.Context, cl lessonClaim, token string, stdout io.Writer) (verdict, observed, output string) {
	var s *lessons.Scenario
	for i := range lessons.Scenarios {
		if lessons.Scenarios[i].Name == cl.Run.Lesson {
			s = &lessons.Scenarios[i]
		}
	}
	if s == nil {
		return catalogue.VerdictError, "this agent has no scenario " + cl.Run.Lesson + " (an older build?)", ""
	}
	ctx, cancel := context.WithTimeout(ctx, lessonTimeout)
	defer cancel()
	c := shopapi.NewClient(64, 30*time.Second, token)
	defer c.Close()
	targets := answering(ctx, c, cl.Targets)
	if len(targets) == 0 {
		return catalogue.VerdictError, fmt.Sprintf("none of the %d replicas listed alive answers GET /healthz", len(cl.Targets)), ""
	}
	var out bytes.Buffer
	verdict, observed = lessons.RunOne(ctx, &lessons.ScenarioRun{C: c, Targets: targets}, *s, io.MultiWriter(&out, stdout))
	return verdict, observed, out.String()
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
