package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// FailoverTimeout bounds the wait for the Sentinels to promote a replica
// after the master went down (their down-after is 1 s; the election and the
// promotion a few seconds more on a loaded machine).
const FailoverTimeout = 20 * time.Second

// ErrSentinel: the replicated Redis could not be acted on or did not do what
// the fault needs (no Sentinel answers, the master refused, no failover).
var ErrSentinel = errors.New("faults: redis sentinel")

// ErrNoFailover: kill_redis_master crashed the master (the fault took
// effect) and the Sentinels promoted no replica in time (one held back by
// hold_replication is not promoted, by the Sentinels' own rule); the old
// master comes back as the master.
var ErrNoFailover = fmt.Errorf("%w: no failover", ErrSentinel)

// Failover is what kill_redis_master did.
type Failover struct {
	OldMaster string `json:"old_master"`
	NewMaster string `json:"new_master"`
}

// sentinelMaster asks the Sentinels, in order, for the master's address.
func (s *Service) sentinelMaster(ctx context.Context) (string, error) {
	if len(s.cfg.SentinelAddrs) == 0 || s.cfg.SentinelMaster == "" {
		return "", fmt.Errorf("%w: this replica has no Sentinels configured (SECKILL_SENTINEL_ADDRS)", ErrSentinel)
	}
	var last error
	for _, a := range s.cfg.SentinelAddrs {
		c := redis.NewSentinelClient(&redis.Options{Addr: a, MaxRetries: -1, DialTimeout: time.Second,
			ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
		hp, err := c.GetMasterAddrByName(ctx, s.cfg.SentinelMaster).Result()
		c.Close()
		if err == nil && len(hp) == 2 {
			return net.JoinHostPort(hp[0], hp[1]), nil
		}
		last = err
	}
	return "", fmt.Errorf("%w: no Sentinel of %v names master %q: %v", ErrSentinel, s.cfg.SentinelAddrs, s.cfg.SentinelMaster, last)
}

// directClient is a client of one Redis without retries: a dropped
// connection must not resend a crash command.
func directClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
}

// HoldReplication stops the master from feeding its replica for d: the
// replica's link is cut (CLIENT KILL TYPE replica) and it cannot sync again
// (the default user may not run PSYNC or SYNC) until d has passed or the
// master restarts (ACLs live in memory). Writes on the master meanwhile
// reach no replica: "the master dies before replicating" made certain
// rather than lucky. It returns the master's address.
func (s *Service) HoldReplication(ctx context.Context, d time.Duration) (string, error) {
	if !s.cfg.Enabled {
		return "", ErrDisabled
	}
	master, err := s.sentinelMaster(ctx)
	if err != nil {
		return "", err
	}
	c := directClient(master)
	defer c.Close()
	// Holding back a replica that is not there, or not in sync yet (a master
	// that came back from the last failover is made a replica some seconds
	// later), would leave the Sentinels nothing to promote.
	if err := s.waitReplicaInSync(ctx, c); err != nil {
		return master, err
	}
	if err := c.Do(ctx, "ACL", "SETUSER", "default", "-psync", "-sync").Err(); err != nil {
		return master, fmt.Errorf("%w: master %s refused ACL SETUSER: %v", ErrSentinel, master, err)
	}
	if err := c.Do(ctx, "CLIENT", "KILL", "TYPE", "replica").Err(); err != nil {
		return master, fmt.Errorf("%w: master %s: CLIENT KILL TYPE replica: %v", ErrSentinel, master, err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		time.Sleep(d)
		// Whatever master is there now: a restarted one has the full ACL
		// already, and granting it again changes nothing.
		rc := directClient(master)
		defer rc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Do(ctx, "ACL", "SETUSER", "default", "+psync", "+sync").Err()
	}()
	return master, nil
}

// ReplicaSyncTimeout bounds hold_replication's wait for a replica in sync
// that the Sentinels see: after a failover, the Sentinels make the old
// master a replica of the new one within some seconds, then it syncs.
const ReplicaSyncTimeout = 45 * time.Second

// waitReplicaInSync waits until the master (c) has an online replica and
// the first Sentinel that answers lists a replica whose link to the master
// is up, not down or disconnected by its account.
func (s *Service) waitReplicaInSync(ctx context.Context, c *redis.Client) error {
	wait, cancel := context.WithTimeout(ctx, ReplicaSyncTimeout)
	defer cancel()
	for {
		if s.replicaInSync(wait, c) {
			return nil
		}
		select {
		case <-wait.Done():
			return fmt.Errorf("%w: master %s has no replica in sync that the Sentinels see after %v",
				ErrSentinel, c.Options().Addr, ReplicaSyncTimeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (s *Service) replicaInSync(ctx context.Context, c *redis.Client) bool {
	info, err := c.Info(ctx, "replication").Result()
	if err != nil || !strings.Contains(info, "state=online") {
		return false
	}
	for _, a := range s.cfg.SentinelAddrs {
		sc := redis.NewSentinelClient(&redis.Options{Addr: a, MaxRetries: -1, DialTimeout: time.Second,
			ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
		replicas, err := sc.Replicas(ctx, s.cfg.SentinelMaster).Result()
		sc.Close()
		if err != nil {
			continue
		}
		for _, r := range replicas {
			if r["flags"] == "slave" && r["master-link-status"] == "ok" {
				return true
			}
		}
		return false
	}
	return false
}

// KillRedisMaster crashes the master the Sentinels name and keeps it down
// for d (DEBUG CRASH-AND-RECOVER d: every connection closed, the process
// re-execs itself after d, empty: no persistence), then waits until the
// Sentinels have promoted another node. The old master comes back as a
// master of nothing; the Sentinels make it a replica of the new one. d must
// outlast the Sentinels' down-after (1 s) for a failover to happen.
func (s *Service) KillRedisMaster(ctx context.Context, d time.Duration) (Failover, error) {
	if !s.cfg.Enabled {
		return Failover{}, ErrDisabled
	}
	old, err := s.sentinelMaster(ctx)
	if err != nil {
		return Failover{}, err
	}
	f := Failover{OldMaster: old}
	c := directClient(old)
	defer c.Close()
	err = c.Do(ctx, "DEBUG", "CRASH-AND-RECOVER", strconv.FormatInt(d.Milliseconds(), 10)).Err()
	var refused redis.Error
	switch {
	case err == nil:
		return f, fmt.Errorf("%w: master %s answered DEBUG CRASH-AND-RECOVER instead of crashing", ErrSentinel, old)
	case errors.As(err, &refused):
		return f, fmt.Errorf("%w: master %s refused DEBUG CRASH-AND-RECOVER (%v); it must run with enable-debug-command "+
			"local and be started by its absolute path", ErrSentinel, old, err)
	}
	wait, cancel := context.WithTimeout(ctx, FailoverTimeout)
	defer cancel()
	for {
		m, err := s.sentinelMaster(wait)
		if err == nil && m != old {
			f.NewMaster = m
			return f, nil
		}
		select {
		case <-wait.Done():
			return f, fmt.Errorf("%w: the Sentinels promoted no replica within %v of killing %s (down for %v; "+
				"is a replica in sync, and down longer than the Sentinels' down-after?)", ErrNoFailover, FailoverTimeout, old, d)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
