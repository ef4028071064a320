package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lessons"
)

// lessonClaim is the answer of POST /api/agents/lesson-claim.
type lessonClaim struct {
	Run     lessons.Run `json:"run"`
	Targets []string    `json:"targets"`
}

// lessonTimeout bounds one lesson on the agent's side, under the shop's
// lessons.RunTimeout so that the verdict still counts.
const lessonTimeout = lessons.RunTimeout - 15*time.Second

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
	verdict, observed, output := runLesson(ctx, cl, stdout)
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
// (SECKILL_ADMIN_TOKEN: lessons create sales and inject faults).
func runLesson(ctx context.Context, cl lessonClaim, stdout io.Writer) (verdict, observed, output string) {
	var s *scenario
	for i := range scenarios {
		if scenarios[i].Name == cl.Run.Lesson {
			s = &scenarios[i]
		}
	}
	if s == nil {
		return lessons.VerdictError, "this agent has no scenario " + cl.Run.Lesson + " (an older build?)", ""
	}
	ctx, cancel := context.WithTimeout(ctx, lessonTimeout)
	defer cancel()
	c := newClient(64, 30*time.Second, config.Get(config.EnvAdminToken, ""))
	defer c.close()
	var out bytes.Buffer
	verdict, observed = runOne(ctx, &scenarioRun{c: c, targets: cl.Targets}, *s, io.MultiWriter(&out, stdout))
	return verdict, observed, out.String()
}
