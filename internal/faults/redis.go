package faults

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisBackTimeout bounds the wait for a restarted Redis to answer again.
const RedisBackTimeout = 10 * time.Second

// Errors of restart_redis.
var (
	// ErrUnknownNode: the node is neither "redis" nor "redlock-1".."redlock-N"
	// of this replica's configuration.
	ErrUnknownNode = errors.New("faults: unknown redis node")
	// ErrRedisRestart: the restart could not be done or the node did not come
	// back; the message names the node and its address.
	ErrRedisRestart = errors.New("faults: redis restart failed")
)

// RedisRestart is what restart_redis did.
type RedisRestart struct {
	Node        string `json:"node"`
	Addr        string `json:"addr"`
	RunIDBefore string `json:"run_id_before"`
	RunIDAfter  string `json:"run_id_after"`
}

// RedisNodes names the nodes restart_redis accepts here, in order.
func (s *Service) RedisNodes() []string {
	var out []string
	if s.cfg.RedisAddr != "" {
		out = append(out, "redis")
	}
	for i := range s.cfg.RedlockAddrs {
		out = append(out, "redlock-"+strconv.Itoa(i+1))
	}
	return out
}

// nodeAddr resolves a node name to its address.
func (s *Service) nodeAddr(node string) (string, error) {
	if node == "redis" && s.cfg.RedisAddr != "" {
		return s.cfg.RedisAddr, nil
	}
	if n, ok := strings.CutPrefix(node, "redlock-"); ok {
		i, err := strconv.Atoi(n)
		if err == nil && i >= 1 && i <= len(s.cfg.RedlockAddrs) && strconv.Itoa(i) == n {
			return s.cfg.RedlockAddrs[i-1], nil
		}
	}
	return "", fmt.Errorf("%w %q: this replica has %v", ErrUnknownNode, node, s.RedisNodes())
}

// RestartRedis restarts one Redis the way a crash and a supervisor would:
// DEBUG CRASH-AND-RECOVER 0 makes it re-exec itself at once, and with no
// persistence (how scripts/services.sh and docker-compose run it) every key
// is gone, every lock on it included, while the holders still believe they
// hold them: "the master restarts and loses the lock". It then
// waits (RedisBackTimeout at most) until the node answers PING with a new
// run_id. The Redis must run with --enable-debug-command (local or yes) and
// have been started by an absolute path, or it cannot re-exec itself.
func (s *Service) RestartRedis(ctx context.Context, node string) (RedisRestart, error) {
	if !s.cfg.Enabled {
		return RedisRestart{}, ErrDisabled
	}
	addr, err := s.nodeAddr(node)
	if err != nil {
		return RedisRestart{}, err
	}
	r := RedisRestart{Node: node, Addr: addr}
	fail := func(format string, args ...any) (RedisRestart, error) {
		return r, fmt.Errorf("%w: node %s at %s: %s", ErrRedisRestart, node, addr, fmt.Sprintf(format, args...))
	}
	// A client of its own, without retries: go-redis would resend the crash
	// command on the dropped connection, and the pool of the strategies must
	// not be borrowed for a connection that is about to die.
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	defer c.Close()
	if r.RunIDBefore, err = runID(ctx, c); err != nil {
		return fail("does not answer before the restart: %v", err)
	}
	err = c.Do(ctx, "DEBUG", "CRASH-AND-RECOVER", "0").Err()
	var refused redis.Error
	switch {
	case err == nil:
		return fail("DEBUG CRASH-AND-RECOVER answered OK instead of restarting")
	case errors.As(err, &refused):
		// e.g. "ERR DEBUG command not allowed" or "failed to restart": the
		// server said no, and is still the same process.
		return fail("refused DEBUG CRASH-AND-RECOVER (%v); it must run with --enable-debug-command local "+
			"and be started by its absolute path", err)
	}
	// Any other error is the connection dropping under us: the restart.
	back, cancel := context.WithTimeout(ctx, RedisBackTimeout)
	defer cancel()
	for {
		id, err := runID(back, c)
		if err == nil && id != r.RunIDBefore {
			r.RunIDAfter = id
			return r, nil
		}
		select {
		case <-back.Done():
			if err == nil {
				return fail("still answers with the same run_id %s after %v: it did not restart", id, RedisBackTimeout)
			}
			return fail("does not answer %v after the restart: %v", RedisBackTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// runID is INFO server's run_id, after a PING: a new one per server start.
func runID(ctx context.Context, c *redis.Client) (string, error) {
	if err := c.Ping(ctx).Err(); err != nil {
		return "", err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "run_id:"); ok {
			return v, nil
		}
	}
	return "", errors.New("INFO server has no run_id")
}
