package faults

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/zkensemble"
)

// ZK ensemble bounds: the kill lock is polled this long before the fault
// gives up (another test is killing a server; retry later); a killed
// server must serve again, with the other two, within zkWholeTimeout of its
// restart (a JVM's start on a loaded machine).
const (
	zkLockWait      = 3 * time.Second
	zkSessionMoved  = 10 * time.Second
	zkWholeTimeout  = 90 * time.Second
	zkRestartMargin = 5 * time.Second
)

// Errors of kill_zk_server.
var (
	// ErrNotEnsemble: this replica's zookeeper strategy does not run on the
	// ensemble, so killing one of its servers would show nothing (and the
	// standalone ZooKeeper must never be killed).
	ErrNotEnsemble = errors.New("faults: this replica's ZooKeeper is not the three-server ensemble")
	// ErrZKBusy: the ensemble cannot take the fault now (another process
	// is killing one of its servers, one is down, or this replica's
	// session is between servers): retry.
	ErrZKBusy = errors.New("faults: the ZooKeeper ensemble is busy")
	// ErrZKEnsemble: a server could not be killed (no pid file where
	// SECKILL_SERVICES_DIR says, a stale one).
	ErrZKEnsemble = errors.New("faults: the ZooKeeper ensemble")
)

// ZKKill is what kill_zk_server did.
type ZKKill struct {
	Killed string `json:"killed"`
	Mode   string `json:"mode"` // the killed server's role: follower
	// SessionWasOn: this replica's session was connected to the killed
	// server; SessionOn is where it is connected once the fault answers.
	SessionWasOn bool   `json:"session_was_on"`
	SessionOn    string `json:"session_on"`
}

// zkServerState is what GET /api/faults reports of the last kill.
type zkServerState struct {
	mu      sync.Mutex
	down    int    // killed and not yet back in a whole ensemble
	lastErr string // the last restart's failure, "" when it came back
}

func (z *zkServerState) set(delta int, lastErr string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.down += delta
	z.lastErr = lastErr
}

// ZKServersDown is the number of ensemble servers this replica killed that
// are not yet serving again in a whole ensemble, and the last restart's
// failure ("" when none): a lesson waits for 0 before it ends.
func (s *Service) ZKServersDown() (int, string) {
	s.zk.mu.Lock()
	defer s.zk.mu.Unlock()
	return s.zk.down, s.zk.lastErr
}

// zkSession is what the zookeeper strategy offers (zklock.Locker).
type zkSession interface {
	Server() (addr string, connected bool)
}

// KillZKServer kills (SIGKILL) a follower of the ensemble: the one this
// replica's session is connected to when that is a follower, else another
// (a leader's death stops every server for an election, which is another
// lesson). It answers once this replica's session is connected again, and
// starts the server again after d, holding the ensemble's kill lock until
// all three serve (ZKServersDown).
func (s *Service) KillZKServer(ctx context.Context, d time.Duration) (ZKKill, error) {
	if err := s.check(d); err != nil {
		return ZKKill{}, err
	}
	l, err := s.zooKeeper()
	if err != nil {
		return ZKKill{}, err
	}
	z, ok := l.(zkSession)
	if !ok {
		return ZKKill{}, fmt.Errorf("faults: the zookeeper strategy (%T) cannot say its server", l)
	}
	ens := s.cfg.ZKEnsemble
	on, connected := z.Server()
	if _, member := ens.Index(on); !member || len(ens.Servers) != 3 {
		return ZKKill{}, fmt.Errorf("%w: its session is on %s, the ensemble is %v (SECKILL_ZK_SERVERS must list the servers of SECKILL_ZK_ENSEMBLE_SERVERS)",
			ErrNotEnsemble, on, ens.Servers)
	}
	if !connected {
		return ZKKill{}, fmt.Errorf("%w: this replica's session is not connected now", ErrZKBusy)
	}
	lockCtx, cancel := context.WithTimeout(ctx, zkLockWait)
	unlock, err := ens.Lock(lockCtx)
	cancel()
	if err != nil {
		return ZKKill{}, fmt.Errorf("%w: %w", ErrZKBusy, err)
	}
	killed, res, err := s.killFollower(ctx, ens, on)
	if err != nil {
		unlock()
		return ZKKill{}, err
	}
	s.zk.set(1, "")
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer unlock()
		time.Sleep(d)
		s.zk.set(-1, s.restartZK(ens, killed))
	}()
	res.SessionOn = s.waitSessionMoved(ctx, z, killed.Addr)
	return res, nil
}

// killFollower picks the follower to kill (on, this replica's server, when
// it is one) in a whole ensemble, and kills it.
func (s *Service) killFollower(ctx context.Context, ens zkensemble.Ensemble, on string) (*zkensemble.Killed, ZKKill, error) {
	leader, err := ens.Whole(ctx)
	if err != nil {
		return nil, ZKKill{}, fmt.Errorf("%w: it is not whole, no server is killed: %w", ErrZKBusy, err)
	}
	victim := on
	if on == leader {
		i := slices.IndexFunc(ens.Servers, func(a string) bool { return a != leader })
		victim = ens.Servers[i]
	}
	killed, err := ens.Kill(victim)
	if err != nil {
		return nil, ZKKill{}, fmt.Errorf("%w: %w", ErrZKEnsemble, err)
	}
	return killed, ZKKill{Killed: victim, Mode: "follower", SessionWasOn: victim == on}, nil
}

// restartZK starts the killed server again and waits for the ensemble to
// be whole; it returns the failure, "" on success.
func (s *Service) restartZK(ens zkensemble.Ensemble, killed *zkensemble.Killed) string {
	if err := killed.Restart(); err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), zkWholeTimeout+zkRestartMargin)
	defer cancel()
	if err := ens.WaitWhole(ctx); err != nil {
		return err.Error()
	}
	return ""
}

// waitSessionMoved waits (bounded) until this replica's session is
// connected to a server other than the killed one, and says which.
func (s *Service) waitSessionMoved(ctx context.Context, z zkSession, killed string) string {
	ctx, cancel := context.WithTimeout(ctx, zkSessionMoved)
	defer cancel()
	for {
		on, connected := z.Server()
		if connected && on != killed {
			return on
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(5 * time.Millisecond):
		}
	}
}
