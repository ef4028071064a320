package faults

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrRedisFault: freeze_redis or clock_jump_redis could not act on the node
// (it does not answer, or refuses DEBUG); the message names the node.
var ErrRedisFault = errors.New("faults: redis fault failed")

// FreezeRedis makes one Redis node answer nothing for d: DEBUG SLEEP, sent
// on a connection of its own, blocks the server's one command thread, which
// is what a hung or unreachable server is to its clients (their commands
// time out; nothing is lost, and the node thaws by itself when d is over,
// even if this replica dies meanwhile). It returns once a PING from another
// connection goes unanswered: the node is frozen. The Redis must run with
// --enable-debug-command (local or yes).
func (s *Service) FreezeRedis(ctx context.Context, node string, d time.Duration) (string, error) {
	if !s.cfg.Enabled {
		return "", ErrDisabled
	}
	addr, err := s.nodeAddr(node)
	if err != nil {
		return "", err
	}
	sleeper := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: d + 5*time.Second, WriteTimeout: time.Second})
	if err := sleeper.Ping(ctx).Err(); err != nil {
		sleeper.Close()
		return addr, fmt.Errorf("%w: node %s at %s does not answer: %v", ErrRedisFault, node, addr, err)
	}
	refused := make(chan error, 1)
	go func() { // outlives the request: the sleep is the fault
		defer sleeper.Close()
		secs := strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
		refused <- sleeper.Do(context.WithoutCancel(ctx), "DEBUG", "SLEEP", secs).Err()
	}()
	probe := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 100 * time.Millisecond, WriteTimeout: 100 * time.Millisecond})
	defer probe.Close()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-refused:
			return addr, fmt.Errorf("%w: node %s at %s: DEBUG SLEEP answered %v; it must run with --enable-debug-command local",
				ErrRedisFault, node, addr, err)
		default:
		}
		if err := probe.Ping(ctx).Err(); err != nil {
			return addr, nil // no answer: frozen
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr, fmt.Errorf("%w: node %s at %s still answers PING after DEBUG SLEEP", ErrRedisFault, node, addr)
}

// JumpRedisClock does to one Redis node's keys what a forward clock jump
// of its server does to them: every key with a TTL longer than left keeps
// only left (PEXPIRE), so a lock on it expires early while its holder,
// which counted the validity on its own clock, still holds it. It returns
// the keys it cut.
func (s *Service) JumpRedisClock(ctx context.Context, node string, left time.Duration) (addr string, cut int, err error) {
	if !s.cfg.Enabled {
		return "", 0, ErrDisabled
	}
	if addr, err = s.nodeAddr(node); err != nil {
		return "", 0, err
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1, DialTimeout: time.Second})
	defer c.Close()
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		key := iter.Val()
		ttl, err := c.PTTL(ctx, key).Result()
		if err != nil {
			return addr, cut, fmt.Errorf("%w: node %s at %s: %v", ErrRedisFault, node, addr, err)
		}
		if ttl > left { // -1 (no TTL) and -2 (gone) are left alone
			if err := c.PExpire(ctx, key, left).Err(); err != nil {
				return addr, cut, fmt.Errorf("%w: node %s at %s: %v", ErrRedisFault, node, addr, err)
			}
			cut++
		}
	}
	if err := iter.Err(); err != nil {
		return addr, cut, fmt.Errorf("%w: node %s at %s: %v", ErrRedisFault, node, addr, err)
	}
	return addr, cut, nil
}
