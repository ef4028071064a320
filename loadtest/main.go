// Command loadtest drives Seckill Lab shop replicas with buyers and reports
// what each lock strategy did to the sale:
//
//	loadtest run    one-shot: create a sale per strategy, send the buyers,
//	                print a table per strategy (and a comparison), exit 1
//	                when a strategy meant to be safe oversold
//	loadtest agent  a load-test replica that takes its share of runs created
//	                through the API, and runs the lessons the dashboard queues
//	                (package agent)
//	loadtest scenario  replay a seed pitfall with faults: predicted vs
//	                observed, PASS when they agree (package lessons/all)
//	loadtest chaos  a Jepsen-style run: random seeded faults, then the
//	                database checked against every answer (package chaos)
//
// This file only dispatches subcommands; each one parses its own flags with
// its own flag.FlagSet.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/seckill-lab/seckill/loadtest/agent"
	"github.com/seckill-lab/seckill/loadtest/chaos"
	"github.com/seckill-lab/seckill/loadtest/interview"
	alllessons "github.com/seckill-lab/seckill/loadtest/lessons/all"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/matrix"
)

const usage = `usage: loadtest <command> [flags]

Commands:
  run       create a sale per strategy on the targets, send the buyers, report
  agent     a load-test replica taking its share of runs created with POST /api/runs
            and running the lessons queued from the dashboard
  scenario  replay a seed pitfall (NAME, all or list) with faults: what the seed
            predicts, what the database shows, PASS when they agree
  chaos     buyers on every safe strategy under a seeded, random schedule of faults
            (process stops and kills, backend restarts, network latency and cuts);
            the database checked against every answer; prints the seed to replay
  matrix    every strategy configuration against every fault kind: what the lab
            predicts for each cell and why (--predict), or cells observed on
            running shops beside their predictions (--targets)
  interview the flash-sale design question as interviewers ask it, each answer's
            figures measured on running shops (what is missing run first), one page (--html)

Run "loadtest <command> -h" for its flags.
Exit codes: 0 ok, 1 a strategy meant to be safe broke / too many errors / run failed
(scenario: a scenario disagreed with the seed), 2 bad usage.
`

// command is one subcommand: it parses args itself and returns an exit code.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// commands is the dispatch table: run in run.go, agent in package agent.
var commands = map[string]command{
	"run":          run,
	"agent":        agent.Main,
	"bench-report": benchReport,        // hidden: make bench's Markdown (benchreport.go, scripts/bench.sh)
	"rate":         rate,               // hidden: the tool's own ceiling against one URL (rate.go, scripts/bench.sh)
	"scenario":     alllessons.Command, // the seeds' pitfalls, predicted vs observed (package lessons/all)
	"chaos":        chaos.Command,      // seeded random faults, then the database checked (package chaos)
	"matrix":       matrix.Command,     // every strategy configuration against every fault (package matrix)
	"interview":    interview.Command,  // the interview path measured here, one page (package interview)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal stops sending and reports what ran; a second one
		// kills at once (the default behaviour comes back after stop).
		<-ctx.Done()
		stop()
	}()
	os.Exit(dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the subcommand named by args[0] and returns its exit code.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return load.ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return load.ExitOK
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "loadtest: unknown command %q\n\n%s", name, usage)
		return load.ExitUsage
	}
	return cmd(ctx, rest, stdout, stderr)
}
