package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisStats is one Redis node's own counters, for a lesson that compares
// what each way of waiting for a lock costs the server: every command it
// has run since it started (INFO commandstats, the INFO that reads them
// included), by name, and the CPU seconds it has used.
type RedisStats struct {
	Node     string           `json:"node"`
	Addr     string           `json:"addr"`
	Commands int64            `json:"commands"`
	ByName   map[string]int64 `json:"by_name"`
	CPUSys   float64          `json:"used_cpu_sys"`
	CPUUser  float64          `json:"used_cpu_user"`
}

// ReadRedisStats reads node's INFO commandstats and INFO cpu. Only where
// faults run: it is a teaching probe, not a monitoring interface.
func (s *Service) ReadRedisStats(ctx context.Context, node string) (RedisStats, error) {
	if !s.cfg.Enabled {
		return RedisStats{}, ErrDisabled
	}
	addr, err := s.nodeAddr(node)
	if err != nil {
		return RedisStats{}, err
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
	defer c.Close()
	info, err := c.Info(ctx, "commandstats", "cpu").Result()
	if err != nil {
		return RedisStats{}, fmt.Errorf("%w: node %s at %s: %v", ErrRedisFault, node, addr, err)
	}
	st := parseRedisStats(info)
	st.Node, st.Addr = node, addr
	return st, nil
}

// parseRedisStats reads the lines "cmdstat_NAME:calls=N,..." and
// "used_cpu_sys:S" / "used_cpu_user:S" of an INFO answer.
func parseRedisStats(info string) RedisStats {
	st := RedisStats{ByName: map[string]int64{}}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(key, "cmdstat_"):
			calls, _, _ := strings.Cut(strings.TrimPrefix(val, "calls="), ",")
			if n, err := strconv.ParseInt(calls, 10, 64); err == nil {
				st.ByName[strings.TrimPrefix(key, "cmdstat_")] = n
				st.Commands += n
			}
		case key == "used_cpu_sys":
			st.CPUSys, _ = strconv.ParseFloat(val, 64)
		case key == "used_cpu_user":
			st.CPUUser, _ = strconv.ParseFloat(val, 64)
		}
	}
	return st
}
