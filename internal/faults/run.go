package faults

import (
	"context"
	"errors"
	"strings"

	"github.com/seckill-lab/seckill/internal/clip"
)

// The table's run functions, one per kind: each calls the Service with its
// validated arguments and says what it did.

func runPauseHolder(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.PauseHolder(d)
}

func runNestedLock(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.NestedLock(d)
}

func runDropReply(_ context.Context, s *Service, a Args) (Result, error) {
	id := a.ID("sale_id")
	if err := s.DropReply(id); err != nil {
		return nil, err
	}
	return Result{"armed": true, "sale_id": id}, nil
}

func runSlowWork(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.SlowWork(d)
}

func runClockSkew(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds(), "for_ms": ClockSkewFor.Milliseconds()}, s.ClockSkew(d)
}

func runGetSetReleaseGap(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.GetSetReleaseGap(d)
}

func runGetSetTakeoverGap(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.GetSetTakeoverGap(d)
}

func runExpireZKSession(ctx context.Context, s *Service, _ Args) (Result, error) {
	id, err := s.ExpireZKSession(ctx)
	return Result{"session_id": id}, err
}

func runSlowDB(ctx context.Context, s *Service, a Args) (Result, error) {
	d, id := a.Duration("ms"), a.ID("sale_id")
	if err := s.SlowDB(ctx, id, d); err != nil {
		return nil, err
	}
	return Result{"ms": d.Milliseconds(), "sale_id": id}, nil
}

func runCutDB(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	return Result{"ms": d.Milliseconds()}, s.CutDB(d)
}

func runCrashAfterSetNX(_ context.Context, s *Service, _ Args) (Result, error) {
	if err := s.CrashAfterSetNX(); err != nil {
		return nil, err
	}
	return Result{"armed": true, "strategies": CrashStrategies()}, nil
}

func runStopProcess(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	pid, err := s.StopProcess(d)
	return Result{"ms": d.Milliseconds(), "pid": pid, "signal": "SIGSTOP then SIGCONT"}, err
}

func runKillProcess(_ context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	pid, err := s.KillProcess(d)
	return Result{"ms": d.Milliseconds(), "pid": pid, "signal": "SIGKILL"}, err
}

// runRestartRedis answers once the node is back.
func runRestartRedis(ctx context.Context, s *Service, a Args) (Result, error) {
	node := a.Choice("node")
	res, err := s.RestartRedis(ctx, node)
	switch {
	case errors.Is(err, ErrUnknownNode):
		return nil, paramError("node", "unknown node %q: this replica has %s", clip.Input(node),
			strings.Join(s.RedisNodes(), ", "))
	case err != nil:
		return nil, err
	}
	return Result{"node": res.Node, "addr": res.Addr, "run_id_before": res.RunIDBefore, "run_id_after": res.RunIDAfter}, nil
}

// runFreezeRedis answers once the node is frozen, not when it thaws.
func runFreezeRedis(ctx context.Context, s *Service, a Args) (Result, error) {
	node, d := a.Choice("node"), a.Duration("ms")
	addr, err := s.FreezeRedis(ctx, node, d)
	if errors.Is(err, ErrUnknownNode) {
		return nil, paramError("node", "unknown node %q: this replica has %s", clip.Input(node), strings.Join(s.RedisNodes(), ", "))
	}
	return Result{"node": node, "addr": addr, "ms": d.Milliseconds()}, err
}

func runClockJumpRedis(ctx context.Context, s *Service, a Args) (Result, error) {
	node, d := a.Choice("node"), a.Duration("ms")
	addr, cut, err := s.JumpRedisClock(ctx, node, d)
	if errors.Is(err, ErrUnknownNode) {
		return nil, paramError("node", "unknown node %q: this replica has %s", clip.Input(node), strings.Join(s.RedisNodes(), ", "))
	}
	return Result{"node": node, "addr": addr, "ms": d.Milliseconds(), "keys_cut": cut}, err
}

func runHoldReplication(ctx context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	master, err := s.HoldReplication(ctx, d)
	return Result{"ms": d.Milliseconds(), "master": master}, err
}

func runKillRedisMaster(ctx context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	fo, err := s.KillRedisMaster(ctx, d)
	return Result{"ms": d.Milliseconds(), "old_master": fo.OldMaster, "new_master": fo.NewMaster}, err
}

func runKillZKServer(ctx context.Context, s *Service, a Args) (Result, error) {
	d := a.Duration("ms")
	k, err := s.KillZKServer(ctx, d)
	return Result{"ms": d.Milliseconds(), "killed": k.Killed, "mode": k.Mode, "session_was_on": k.SessionWasOn,
		"session_on": k.SessionOn}, err
}

func runKillConsumer(_ context.Context, s *Service, a Args) (Result, error) {
	point := a.Choice("point")
	if err := s.KillConsumer(point); err != nil {
		return nil, err
	}
	return Result{"armed": true, "point": point}, nil
}
