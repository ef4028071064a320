package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/runwire"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Timings of `loadtest agent`.
const (
	agentBeatEvery   = time.Second            // discovery heartbeat (expiry is 5 s)
	agentPollEvery   = 200 * time.Millisecond // claim polling while idle
	agentReportEvery = time.Second            // cumulative report while executing
	agentCallTimeout = 5 * time.Second        // one control call (claim, report, heartbeat)
	agentOrderTO     = 30 * time.Second       // one order request: well past the shop's lock wait (10 s), so the answer is the shop's
	agentOpenWorkers = 256                    // open model: most requests in flight per share
	maxAgentIDLen    = 64                     // replicas.id
)

// agentConfig is `loadtest agent` after parsing.
type agentConfig struct {
	shops []string // control endpoints, tried in turn
	id    string
	token string // the shops' admin token: every agent call writes
}

func parseAgentFlags(args []string, stderr io.Writer) (agentConfig, error) {
	fs := flag.NewFlagSet("loadtest agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shop := fs.String("shop", "", "shop replica base `URL`s, comma-separated: where to register, claim and report (the next one is tried when one dies)")
	id := fs.String("id", "", "agent `name` in discovery (default agent-<host>-<pid>)")
	token := fs.String("admin-token", config.Get(config.EnvAdminToken, ""),
		"the shops' admin bearer `token`, needed when they have one (env "+config.EnvAdminToken+")")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: loadtest agent -shop URL[,URL...] [-id NAME]\n\n"+
			"A load-test replica: registers through the shop, takes its share of the runs\n"+
			"created with POST /api/runs, and reports its figures every second.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return agentConfig{}, err
	}
	if fs.NArg() > 0 {
		return agentConfig{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	shops, err := load.ParseTargets(*shop)
	if err != nil {
		return agentConfig{}, fmt.Errorf("-shop: %w", err)
	}
	cfg := agentConfig{shops: shops, id: *id, token: *token}
	if cfg.id == "" {
		host, _ := os.Hostname()
		cfg.id = fmt.Sprintf("agent-%s-%d", host, os.Getpid())
		if len(cfg.id) > maxAgentIDLen {
			cfg.id = cfg.id[len(cfg.id)-maxAgentIDLen:]
		}
	}
	if len(cfg.id) > maxAgentIDLen {
		return cfg, fmt.Errorf("-id: at most %d characters", maxAgentIDLen)
	}
	return cfg, nil
}

// Main is `loadtest agent`: heartbeat, poll for shares, execute them.
// It runs until ctx is done (SIGINT/SIGTERM), then deregisters.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseAgentFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return load.ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest agent: %v\n", err)
		return load.ExitUsage
	}
	ctl := &control{c: shopapi.NewClient(4, agentCallTimeout, cfg.token), shops: cfg.shops}
	defer ctl.c.Close()
	fmt.Fprintf(stdout, "agent %s: control via %v\n", cfg.id, cfg.shops)

	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		heartbeat(ctx, ctl, cfg.id)
	}()
	poll := time.NewTicker(agentPollEvery)
	defer poll.Stop()
	for ctx.Err() == nil {
		var a runwire.Assignment
		status, err := ctl.call(ctx, http.MethodPost, "/api/agents/claim", map[string]string{"agent_id": cfg.id}, &a)
		switch {
		case err != nil && ctx.Err() == nil:
			fmt.Fprintf(stderr, "agent %s: claim: %v\n", cfg.id, err)
		case status == http.StatusOK:
			fmt.Fprintf(stdout, "agent %s: run %d step %d (%s) share %d: %d buyers on %d targets\n",
				cfg.id, a.RunID, a.Step, a.Strategy, a.Share, a.Buyers, len(a.Targets))
			res := execute(ctx, ctl, cfg.id, a, stderr)
			fmt.Fprintf(stdout, "agent %s: run %d step %d share %d done: %d requests, %d orders in %.2fs\n",
				cfg.id, a.RunID, a.Step, a.Share, res.Requests, res.Orders, float64(res.ElapsedMS)/1000)
			continue // claim the next share at once
		}
		if status != http.StatusOK && err == nil && claimLesson(ctx, ctl, cfg.id, stdout, stderr) {
			continue
		}
		select {
		case <-ctx.Done():
		case <-poll.C:
		}
	}
	<-beatDone
	return load.ExitOK
}

// heartbeat announces the agent every second through the shop (discovery
// needs the database, which only the shop has) and deregisters on the way
// out, so that it leaves the live view at once.
func heartbeat(ctx context.Context, ctl *control, id string) {
	body := map[string]any{"agent_id": id, "pid": os.Getpid()}
	tick := time.NewTicker(agentBeatEvery)
	defer tick.Stop()
	for {
		_, _ = ctl.call(ctx, http.MethodPost, "/api/agents/heartbeat", body, nil)
		select {
		case <-ctx.Done():
			bye, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentCallTimeout)
			defer cancel()
			body["gone"] = true
			_, _ = ctl.call(bye, http.MethodPost, "/api/agents/heartbeat", body, nil)
			return
		case <-tick.C:
		}
	}
}

// control makes the agent's control calls on the first shop that answers,
// starting with the last one that did: a dead replica costs one failed dial,
// then the agent stays on the next one.
type control struct {
	c     *shopapi.Client
	shops []string
	cur   atomic.Int64
}

// call sends body as JSON to path on a live shop and decodes a 200 answer
// into out (when not nil). It returns the status; an answer other than
// 200/201/204 is an error with the shop's code. Only a transport failure
// moves on to the next shop: an HTTP answer is the cluster's answer.
func (ctl *control) call(ctx context.Context, method, path string, body, out any) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	start := int(ctl.cur.Load())
	var lastErr error
	for k := range ctl.shops {
		i := (start + k) % len(ctl.shops)
		cctx, cancel := context.WithTimeout(ctx, agentCallTimeout)
		status, raw, err := ctl.once(cctx, method, ctl.shops[i]+path, b)
		cancel()
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			continue
		}
		ctl.cur.Store(int64(i))
		switch status {
		case http.StatusOK, http.StatusCreated:
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					return status, fmt.Errorf("%s %s: %w", method, path, err)
				}
			}
			return status, nil
		case http.StatusNoContent:
			return status, nil
		}
		return status, shopapi.StatusError(method, ctl.shops[i]+path, status, raw)
	}
	return 0, fmt.Errorf("no shop answers (%d tried): %w", len(ctl.shops), lastErr)
}

func (ctl *control) once(ctx context.Context, method, url string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if ctl.c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ctl.c.Token)
	}
	resp, err := ctl.c.Http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, raw, err
}
