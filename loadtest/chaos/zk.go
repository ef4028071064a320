package chaos

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/zkensemble"
	"github.com/seckill-lab/seckill/loadtest/load"
)

// zkKillLockWait bounds the wait for the ensemble's kill lock: another
// process (a test, a lesson) may have a server down, and two down of three
// is no quorum for anybody. A kill that waited longer is not injected.
const zkKillLockWait = 20 * time.Second

// zkWholeBound bounds the wait for a restarted server to serve again with
// the other two (a JVM's start on a loaded machine).
const zkWholeBound = 2 * time.Minute

// killZKServer SIGKILLs the event's server of the ensemble, leader or
// follower (a leader's death also stops the other two for an election),
// starts it again after e.For with its own command line, and returns once
// all three serve again, holding the ensemble's kill lock throughout. The
// kill is by pid (services.sh's pid files), not through the replicas: they
// reach the ensemble through the run's proxies, so no replica knows the
// servers' own addresses.
func (n *nemesis) killZKServer(ctx context.Context, e faultEvent) error {
	var i int
	if _, err := fmt.Sscanf(e.Backend, "zookeeper-%d", &i); err != nil || i < 1 || i > len(n.ensemble.Servers) {
		return fmt.Errorf("no server %s in the ensemble %v", e.Backend, n.ensemble.Servers)
	}
	addr := n.ensemble.Servers[i-1]
	lockCtx, cancel := context.WithTimeout(ctx, cmp.Or(n.zkLockWait, zkKillLockWait))
	unlock, err := n.ensemble.Lock(lockCtx)
	cancel()
	if errors.Is(err, zkensemble.ErrBusy) {
		n.mu.Lock()
		n.busy[e.Kind]++
		n.mu.Unlock()
		return fmt.Errorf("%w (waited %v)", err, cmp.Or(n.zkLockWait, zkKillLockWait))
	}
	if err != nil {
		return err
	}
	defer unlock()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	leader, err := n.ensemble.Whole(wctx)
	cancel()
	if err != nil {
		return fmt.Errorf("the ensemble is not whole, no server killed: %w", err)
	}
	k, err := n.ensemble.Kill(addr)
	if err != nil {
		return err
	}
	role := "follower"
	if addr == leader {
		role = "leader"
	}
	n.say("  [%6.1fs] kill_zk_server: %s (%s) killed\n", time.Since(n.start).Seconds(), addr, role)
	load.Sleep(ctx, e.For) // the load's end cuts the outage short: the check needs every server
	if err := k.Restart(); err != nil {
		n.unhealed(fmt.Sprintf("kill_zk_server: %s killed and not started again: %v", addr, err))
		return nil
	}
	wctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), zkWholeBound)
	defer cancel()
	if err := n.ensemble.WaitWhole(wctx); err != nil {
		n.unhealed(fmt.Sprintf("kill_zk_server: %s restarted, the ensemble not whole again within %v: %v", addr, zkWholeBound, err))
	}
	return nil
}

// unhealed records a fault that took effect and left damage behind: the
// run fails, whatever the database says.
func (n *nemesis) unhealed(what string) {
	n.mu.Lock()
	n.harm = append(n.harm, what)
	n.mu.Unlock()
	n.say("  [%6.1fs] %s\n", time.Since(n.start).Seconds(), what)
}
