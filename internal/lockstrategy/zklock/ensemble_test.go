package zklock

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/internal/zkensemble"
)

// killAndRestart holds the ensemble's kill lock for the test (a shop's
// kill_zk_server fault under another package's test kills servers of the
// same ensemble: two down at once would be no quorum), and gives a kill
// that the test's cleanup undoes if the test has not: every server it
// killed is started again and the ensemble is whole before the lock goes.
func killAndRestart(t *testing.T, ens zkensemble.Ensemble) (kill func(addr string), restart func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	unlock, err := ens.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var down []*zkensemble.Killed
	restart = func() {
		for _, k := range down {
			if err := k.Restart(); err != nil {
				t.Error(err)
			}
		}
		down = nil
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		if err := ens.WaitWhole(ctx); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { restart(); unlock() })
	kill = func(addr string) {
		k, err := ens.Kill(addr)
		if err != nil {
			t.Fatal(err)
		}
		down = append(down, k)
	}
	return kill, restart
}

// TestEnsembleKeepsTheLockWhenAServerDies: a holder holds the zookeeper
// lock on the ensemble; the server its session is connected to is killed
// (SIGKILL), and then one it is not connected to. Each time the session
// moves to (or stays on) a live server, the lock stays held (Lost() not
// closed) and a second contender stays out; after the holder unlocks, the
// contender gets it. Two servers of three are a quorum: nothing is lost.
func TestEnsembleKeepsTheLockWhenAServerDies(t *testing.T) {
	ens := testenv.ZKEnsemble(t)
	kill, restart := killAndRestart(t, ens)
	servers := ens.Servers
	// A session timeout long enough for a leader election (tickTime 500 ms)
	// and a reconnect: Lost() closes after a third of it disconnected.
	holder, err := New(servers, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	contender, err := New(servers, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer contender.Close()
	key := locktest.Key(t)
	le, err := locktest.LockWithin(holder, key, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, which := range []string{"its own server", "another server"} {
		connected := holder.conn.Server()
		victim := connected
		if which == "another server" {
			for _, s := range servers {
				if s != connected && testenv.Reachable(s) == nil {
					victim = s
					break
				}
			}
		}
		kill(victim)
		testenv.WaitFor(t, 30*time.Second, "the holder's session on a live server", func() bool {
			return holder.conn.State() == zk.StateHasSession && holder.conn.Server() != victim
		})
		select {
		case <-le.Lost():
			t.Fatalf("killing %s (%s) lost the lock", which, victim)
		default:
		}
		if c, err := locktest.LockWithin(contender, key, time.Second); err == nil {
			locktest.Unlock(c)
			t.Fatalf("after killing %s (%s) a second contender got the lock the holder has", which, victim)
		}
		t.Logf("killed %s (%s): the holder's session is on %s, the lock held, the contender kept out", which, victim, holder.conn.Server())
		restart()
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
	c, err := locktest.LockWithin(contender, key, 30*time.Second)
	if err != nil {
		t.Fatalf("the contender after the holder's unlock: %v", err)
	}
	locktest.Unlock(c)
}
