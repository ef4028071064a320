package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// On a private replicated Redis: with replication held, a key written on
// the master never reaches the replica; kill_redis_master then has the
// Sentinels promote the replica, and the key is gone for every client that
// follows the master: the seeds' failover that loses a lock. Without the
// hold, a key the replica acknowledged (WAIT 1) survives the same kill.
func TestKillRedisMasterLosesWhatWasNotReplicated(t *testing.T) {
	sentinels := testenv.PrivateSentinel(t)
	f := faults.New(faults.Config{Enabled: true, SentinelAddrs: sentinels, SentinelMaster: testenv.SentinelMaster}, nil)
	c := redis.NewFailoverClient(lockstrategy.SentinelOptions(testenv.SentinelMaster, sentinels, 4))
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	if err := c.Set(ctx, "replicated", "A", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Wait(ctx, 1, 5000).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d replicas acknowledged (%v)", n, err)
	}
	master, err := f.HoldReplication(ctx, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "lock", "A", 0).Err(); err != nil {
		t.Fatal(err)
	}
	fo, err := f.KillRedisMaster(ctx, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", fo)
	if fo.OldMaster != master || fo.NewMaster == "" || fo.NewMaster == master {
		t.Fatalf("failover %+v from master %s", fo, master)
	}
	testenv.WaitFor(t, 30*time.Second, "the failover client on the new master", func() bool {
		return c.Get(ctx, "replicated").Val() == "A"
	})
	if n := c.Exists(ctx, "lock").Val(); n != 0 {
		t.Fatal("the unreplicated key survived the failover")
	}
}

func TestSentinelFaultsRefuse(t *testing.T) {
	ctx := context.Background()
	if _, err := faults.New(faults.Config{SentinelAddrs: []string{"127.0.0.1:1"}, SentinelMaster: "m"}, nil).KillRedisMaster(ctx, time.Second); !errors.Is(err, faults.ErrDisabled) {
		t.Fatalf("disabled: %v", err)
	}
	if _, err := faults.New(faults.Config{Enabled: true}, nil).HoldReplication(ctx, time.Second); !errors.Is(err, faults.ErrSentinel) {
		t.Fatalf("no Sentinels: %v", err)
	}
}
