package zklock

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// ensemble is the three-server ensemble `scripts/services.sh up
// --zk-ensemble` runs (make test starts it): its addresses, and where the
// script keeps each server's pid file. Only this test kills its servers.
func ensemble(t *testing.T) (servers []string, pidFile func(i int) string, restart func()) {
	t.Helper()
	testenv.SkipInShort(t)
	servers = config.List(config.Get(config.EnvZKEnsembleServers, config.DefaultZKEnsembleServers))
	for _, s := range servers {
		if err := testenv.Reachable(s); err != nil {
			testenv.Unavailable(t, "the ZooKeeper ensemble (scripts/services.sh up --zk-ensemble) at "+s, err)
		}
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := config.Get("SECKILL_SERVICES_DIR", filepath.Join(root, ".run"))
	pidFile = func(i int) string { return filepath.Join(dir, fmt.Sprintf("zk-ensemble-%d", i), "zookeeper.pid") }
	restart = func() {
		out, err := exec.Command("bash", filepath.Join(root, "scripts/services.sh"), "up", "--zk-ensemble").CombinedOutput()
		if err != nil {
			t.Fatalf("restart the ensemble: %v\n%s", err, out)
		}
	}
	return servers, pidFile, restart
}

// kill SIGKILLs the ensemble's server at addr.
func killServer(t *testing.T, servers []string, pidFile func(int) string, addr string) {
	t.Helper()
	for i, s := range servers {
		if s != addr {
			continue
		}
		raw, err := os.ReadFile(pidFile(i + 1))
		if err != nil {
			t.Fatalf("pid of %s: %v", addr, err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %s (pid %d): %v", addr, pid, err)
		}
		return
	}
	t.Fatalf("%s is not a server of %v", addr, servers)
}

// TestEnsembleKeepsTheLockWhenAServerDies: a holder holds the zookeeper
// lock on the ensemble; the server its session is connected to is killed
// (SIGKILL), and then one it is not connected to. Each time the session
// moves to (or stays on) a live server, the lock stays held (Lost() not
// closed) and a second contender stays out; after the holder unlocks, the
// contender gets it. Two servers of three are a quorum: nothing is lost.
func TestEnsembleKeepsTheLockWhenAServerDies(t *testing.T) {
	servers, pidFile, restart := ensemble(t)
	t.Cleanup(restart) // the killed servers rejoin for the next run
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
		killServer(t, servers, pidFile, victim)
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
