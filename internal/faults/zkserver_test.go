package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// TestKillZKServer: a replica on the ensemble holds a zookeeper lock; the
// fault kills a follower (the one its session is on when it can) and
// answers once the session is connected to a live server. The lock is
// still held and still excludes another replica; a second kill while the
// first server is down is refused (the kill lock); the server comes back
// and the ensemble is whole again, and only then is the fault done.
func TestKillZKServer(t *testing.T) {
	ens := testenv.ZKEnsemble(t)
	b := lockstrategy.Backends{ZKServers: ens.Servers}
	mine, other := lockstrategy.NewInstances(b), lockstrategy.NewInstances(b)
	t.Cleanup(func() { mine.Close(); other.Close() })
	f := faults.New(faults.Config{Enabled: true, ZKEnsemble: ens, ZooKeeper: zooKeeperOf(mine)}, nil)
	t.Cleanup(f.Wait) // the killed server is started again before the test ends

	holder, err := mine.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := locktest.Key(t)
	le, err := locktest.LockWithin(holder, key, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var res faults.ZKKill
	// Another package's test may be killing a server of its own: retry.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// Down longer than the kill lock's wait (3 s): the second kill below
		// must find the lock held.
		res, err = f.KillZKServer(context.Background(), 6*time.Second)
		if !errors.Is(err, faults.ErrZKBusy) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if res.Mode != "follower" || res.SessionOn == "" || res.SessionOn == res.Killed {
		t.Errorf("kill answered %+v: want a follower killed and the session on a live server", res)
	}
	if down, _ := f.ZKServersDown(); down != 1 {
		t.Errorf("ZKServersDown = %d right after the kill, want 1", down)
	}
	if _, err := f.KillZKServer(context.Background(), time.Second); !errors.Is(err, faults.ErrZKBusy) {
		t.Errorf("a second kill while one server is down: %v, want ErrZKBusy", err)
	}
	select {
	case <-le.Lost():
		t.Fatal("the holder lost its lock when a follower died")
	default:
	}
	contender, err := other.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := locktest.LockWithin(contender, key, 500*time.Millisecond); err == nil {
		locktest.Unlock(c)
		t.Fatal("another replica got the lock the holder still has")
	}
	testenv.WaitFor(t, 2*time.Minute, "the killed server back in a whole ensemble", func() bool {
		down, failed := f.ZKServersDown()
		if failed != "" {
			t.Fatalf("restart: %s", failed)
		}
		return down == 0
	})
	if _, err := ens.Whole(context.Background()); err != nil {
		t.Fatalf("the ensemble after the fault: %v", err)
	}
	if err := locktest.Unlock(le); err != nil {
		t.Fatal(err)
	}
}

// TestKillZKServerRefusals: a replica whose zookeeper is the standalone
// server is refused (its server is never killed); a disabled one too.
func TestKillZKServerRefusals(t *testing.T) {
	ens := testenv.ZKEnsemble(t)
	lockers := lockstrategy.NewInstances(lockstrategy.Backends{ZKServers: testenv.ZKServers(t)})
	t.Cleanup(func() { lockers.Close() })
	l, err := lockers.Locker("zookeeper", lockstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	le, err := locktest.LockWithin(l, locktest.Key(t), 30*time.Second) // a connected session
	if err != nil {
		t.Fatal(err)
	}
	defer locktest.Unlock(le)
	f := faults.New(faults.Config{Enabled: true, ZKEnsemble: ens, ZooKeeper: zooKeeperOf(lockers)}, nil)
	if _, err := f.KillZKServer(context.Background(), time.Second); !errors.Is(err, faults.ErrNotEnsemble) {
		t.Errorf("standalone: %v, want ErrNotEnsemble", err)
	}
	off := faults.New(faults.Config{ZKEnsemble: ens, ZooKeeper: zooKeeperOf(lockers)}, nil)
	if _, err := off.KillZKServer(context.Background(), time.Second); !errors.Is(err, faults.ErrDisabled) {
		t.Errorf("disabled: %v, want ErrDisabled", err)
	}
}
