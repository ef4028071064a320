package locktest

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/claims"
)

// Claim is a claim of the seeds judged on the benchmark's figures.
type Claim = claims.Claim

// Claims judges the seeds' claims on rs at contenders and work: each
// lock's critical sections per second in every round (a strategy's results
// at the same contenders and work are its runs) and, where counted, its
// Redis commands per acquisition; other holds the figures that do not come
// from rs (the database's own transactions per second, redsync on one
// master against three), with their conditions.
func Claims(rs []Result, contenders int, work time.Duration, other claims.Figures) []Claim {
	ops, cmds := map[string][]float64{}, map[string][]float64{}
	rounds := 0
	for _, r := range rs {
		if r.Contenders == contenders && r.Work == work && r.Ops > 0 {
			ops[r.Strategy] = append(ops[r.Strategy], r.PerSecond())
			rounds = max(rounds, len(ops[r.Strategy]))
			if r.Commands > 0 {
				cmds[r.Strategy] = append(cmds[r.Strategy], r.CommandsPerOp())
			}
		}
	}
	cond := claims.BenchConditions(contenders, work, rounds)
	f := other
	f.Conditions, f.ConditionsZh, f.PerSecond = cond.En, cond.Zh, ops
	if len(cmds) > 0 {
		f.Commands, f.CommandsConditions = cmds, claims.CommandsConditions(contenders, work, rounds)
	}
	return claims.Judge(f)
}

// PrintClaims writes the claims table (Markdown) for each work at
// contenders; the claims whose figures do not depend on the work (the
// database's TPS, redsync on one master against three, the complexity
// ranking) once.
func PrintClaims(w io.Writer, rs []Result, contenders int, works []time.Duration, other claims.Figures) {
	fmt.Fprintln(w, "The seeds' claims, checked on this machine (inconclusive: the compared ranges overlap, or the figures cannot tell):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| seed says | checked | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|")
	seen := map[string]bool{}
	for _, work := range works {
		for _, c := range Claims(rs, contenders, work, other) {
			if seen[c.Seed+c.Measured] {
				continue
			}
			seen[c.Seed+c.Measured] = true
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.Seed, c.Claim, c.Measured, c.Verdict)
		}
	}
}

// A CommandCounter counts the commands a go-redis client sends (a hook:
// AddHook it to the client), a pipeline's each, so that a lock's Redis
// commands are its own even where other clients share the server.
type CommandCounter struct{ n atomic.Int64 }

// Count is the commands sent so far.
func (c *CommandCounter) Count() int64 { return c.n.Load() }

func (c *CommandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *CommandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *CommandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}
