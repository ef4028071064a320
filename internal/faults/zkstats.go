package faults

import (
	"context"
	"fmt"
)

// ZKStats is what this replica's zookeeper strategy has sent its ZooKeeper
// server since the session was first opened, counted by the shop as it
// writes each packet (connect, create, getChildren, getData with a watch,
// exists, delete, the session's heartbeat pings...), and the watch events
// that woke one of its waiters: the counterpart, for a lesson that
// compares ways of waiting, of a Redis node's INFO commandstats.
type ZKStats struct {
	Requests map[string]int64 `json:"requests"`
	Wakeups  int64            `json:"wakeups"`
}

// zkTraffic is what the zookeeper strategy counts (zklock.Locker).
type zkTraffic interface {
	Traffic() (requests map[string]int64, wakeups int64)
}

// ReadZKStats reads this replica's zookeeper strategy's counts, opening its
// session if no sale has yet. Only where faults run: a teaching probe.
func (s *Service) ReadZKStats(_ context.Context) (ZKStats, error) {
	if !s.cfg.Enabled {
		return ZKStats{}, ErrDisabled
	}
	l, err := s.zooKeeper()
	if err != nil {
		return ZKStats{}, err
	}
	z, ok := l.(zkTraffic)
	if !ok {
		return ZKStats{}, fmt.Errorf("faults: the zookeeper strategy (%T) does not count its traffic", l)
	}
	requests, wakeups := z.Traffic()
	return ZKStats{Requests: requests, Wakeups: wakeups}, nil
}
