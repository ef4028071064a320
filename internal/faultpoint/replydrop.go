package faultpoint

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// ErrReplyDropped is the cause inside the transport error a ReplyDropper
// reports: the command ran on the server, its reply never came.
var ErrReplyDropped = errors.New("reply dropped by the drop_reply fault")

// ReplyDropper is a go-redis hook for the drop_reply fault ("the acquire
// timed out, but did it succeed?"): armed with a key, it lets
// the next script (EVAL, EVALSHA) on that key run on the server, then
// reports a lost reply to its caller, as a connection that died between the
// server's write and our read would. Nothing else is touched. Dropped
// counts the replies it dropped, so that a lesson can tell the fault's
// effect from its arming.
type ReplyDropper struct {
	mu      sync.Mutex
	key     string // "" when not armed
	dropped atomic.Int64
}

var _ redis.Hook = (*ReplyDropper)(nil)

// Arm drops the reply of the next script whose first key is key's lock.
func (d *ReplyDropper) Arm(key string) {
	d.mu.Lock()
	d.key = key
	d.mu.Unlock()
}

// Dropped is the number of replies dropped since the process started.
func (d *ReplyDropper) Dropped() int64 { return d.dropped.Load() }

// take reports whether cmd is the armed script, disarming it and counting
// the drop.
func (d *ReplyDropper) take(cmd redis.Cmder) bool {
	name := cmd.Name()
	if name != "evalsha" && name != "eval" {
		return false
	}
	args := cmd.Args()
	if len(args) < 4 {
		return false
	}
	first := fmt.Sprint(args[3])
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.key == "" || !namesKey(first, d.key) {
		return false
	}
	d.key = ""
	d.dropped.Add(1)
	return true
}

// namesKey: first is key itself, or key under a strategy's prefix
// ("2level:" + key) or hash tag ("redisson:{" + key + "}"); never a longer
// key ("...:sale:12" is not "...:sale:123").
func namesKey(first, key string) bool {
	return first == key || strings.HasSuffix(first, ":"+key) || strings.Contains(first, "{"+key+"}")
}

func (d *ReplyDropper) DialHook(next redis.DialHook) redis.DialHook { return next }

func (d *ReplyDropper) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		// Only a script that ran (a NOSCRIPT EVALSHA did not, and its EVAL
		// follows) has a reply worth losing.
		if err == nil && d.take(cmd) {
			lost := &net.OpError{Op: "read", Net: "tcp", Err: ErrReplyDropped}
			cmd.SetErr(lost)
			return lost
		}
		return err
	}
}

func (d *ReplyDropper) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
