package chaos

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
)

// The kinds the run adds to the lab's own (the fault table's, drawn where
// faults.ChaosKinds says): the net_ ones act on the run's TCP proxy between
// one replica and one backend, restart_redlock restarts one RedLock master.
const (
	chaosRestartMstr  = "restart_redlock" // one RedLock master restarted
	chaosNetLatency   = "net_latency"     // replica <-> backend latency
	chaosNetCut       = "net_cut"         // replica <-> backend connections reset, new ones refused
	chaosNetBlackhole = "net_blackhole"   // replica <-> backend bytes dropped (a partition that does not say so)
)

// Kinds lists every kind the run may draw, in the order the tables print
// them: the fault table's (faults.ChaosKinds: not clock_skew nor the getset
// gaps, which act on redis-getset only, which is not safe and never runs
// here), then the run's own.
var Kinds = append(faults.ChaosKinds(), chaosRestartMstr, chaosNetLatency, chaosNetCut, chaosNetBlackhole)

// ownedOnly are the kinds that need replicas the run started itself: a
// killed one must be restarted (the table's OwnedOnly), and a network fault
// needs the run's proxy between the replica and its backends.
var ownedOnly = func() map[string]bool {
	owned := map[string]bool{chaosNetLatency: true, chaosNetCut: true, chaosNetBlackhole: true}
	for _, k := range faults.Kinds() {
		if k.Chaos.OwnedOnly {
			owned[string(k.Name)] = true
		}
	}
	return owned
}()

// faultEvent is one planned fault. The plan is a pure function of the seed
// and the run's shape (planFaults), so the same flags replay it exactly.
type faultEvent struct {
	At      time.Duration // from the start of the load
	Kind    string
	Replica int           // index into the replicas
	For     time.Duration // how long the fault lasts (0: instant)
	Backend string        // net_*: redis, redlock-N, zookeeper(-N) or etcd; restart_redlock: redlock-N; kill_zk_server: zookeeper-N
	Config  int           // slow_db, drop_reply: which configuration's current sale
	Latency time.Duration // net_latency
	// Durability: restart_redis sets it (none, everysec, always) first,
	// when the replicas have the queue; Point: where kill_consumer kills.
	Durability string
	Point      string
}

func (e faultEvent) String() string {
	s := fmt.Sprintf("%-17s shop-%d", e.Kind, e.Replica+1)
	switch {
	case e.Kind == chaosNetLatency:
		s += fmt.Sprintf(" <-> %s +%v", e.Backend, e.Latency)
	case strings.HasPrefix(e.Kind, "net_"):
		s += " <-> " + e.Backend
	case e.Kind == chaosRestartMstr, e.Kind == string(faultkind.KillZKServer):
		s += " " + e.Backend
	case e.Kind == string(faultkind.SlowDB), e.Kind == string(faultkind.DropReply):
		s += fmt.Sprintf(" config %d", e.Config+1)
	case e.Kind == string(faultkind.RestartRedis):
		s += " durability " + e.Durability
	case e.Kind == string(faultkind.KillConsumer):
		s += " " + e.Point
	}
	if e.For > 0 {
		s += fmt.Sprintf(" for %v", e.For)
	}
	return s
}

// No fault is planned in the first chaosQuietStart of the load (the buyers
// warm up), nor in its last chaosQuietEnd (what was broken heals before the
// check); a refused fault is not tried again in it either.
const (
	chaosQuietStart = 3 * time.Second
	chaosQuietEnd   = 5 * time.Second
)

// planShape is what a plan depends on besides the seed.
type planShape struct {
	Duration   time.Duration
	Replicas   int
	Configs    int
	Kinds      []string // the kinds this run may inject
	Backends   []string // proxied backends of a replica: redis, redlock-1.., zookeeper or zookeeper-1.., etcd
	RedlockN   int
	ZKServers  int           // servers of the ZooKeeper ensemble kill_zk_server kills (0: none)
	RedisCfgs  []int         // configurations whose lock runs scripts on Redis: drop_reply picks one
	TTL        time.Duration // the locks' TTL: stalls are drawn past it
	MeanGap    time.Duration // mean time between two faults
	QuietStart time.Duration // no fault before (the buyers warm up)
	QuietEnd   time.Duration // nor this close to the end (what was broken heals before the check)
}

// planFaults draws the schedule: exponential gaps (a Poisson process of
// faults), each kind once first in a seeded order (a short run still tries
// every kind; hold_replication before kill_redis_master), then kinds
// chosen uniformly, and each kind's parameters. Stalls are
// drawn from 1.5 TTL to max(6 TTL, 5 s), so that they outlive the lock and
// some outlive a ZooKeeper session (4 s); network faults last 0.5 to 5 s.
func planFaults(seed uint64, sh planShape) []faultEvent {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if len(sh.Kinds) == 0 || sh.Replicas == 0 {
		return nil
	}
	between := func(lo, hi time.Duration) time.Duration {
		return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
	}
	var out []faultEvent
	end := sh.Duration - sh.QuietEnd
	first := slices.Clone(sh.Kinds)
	r.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	// hold_replication needs a replica in sync; after kill_redis_master the
	// old master comes back, is made a replica and syncs, which can take
	// most of a short run on a loaded machine: the first pass holds
	// replication before it kills the master.
	if h, k := slices.Index(first, string(faultkind.HoldReplication)), slices.Index(first, string(faultkind.KillRedisMaster)); h >= 0 && k >= 0 && k < h {
		first[h], first[k] = first[k], first[h]
	}
	for at, n := sh.QuietStart, 0; ; n++ {
		at += time.Duration(r.ExpFloat64() * float64(sh.MeanGap))
		if at >= end {
			break
		}
		kind := sh.Kinds[r.IntN(len(sh.Kinds))]
		if n < len(first) {
			kind = first[n]
		}
		e := faultEvent{At: at.Round(time.Millisecond), Kind: kind, Replica: r.IntN(sh.Replicas)}
		stall := between(sh.TTL*3/2, max(sh.TTL*6, 5*time.Second))
		switch e.Kind {
		case string(faultkind.PauseHolder), string(faultkind.StopProcess), string(faultkind.SlowWork):
			e.For = stall
		case string(faultkind.NestedLock): // how long the holder waits for itself
			e.For = between(100*time.Millisecond, time.Second)
		case string(faultkind.CutDB), string(faultkind.HoldReplication), string(faultkind.StaleRing):
			e.For = between(500*time.Millisecond, 5*time.Second)
		case string(faultkind.KillRedisMaster): // down longer than the Sentinels' down-after (1 s)
			e.For = between(1500*time.Millisecond, 5*time.Second)
		case string(faultkind.KillZKServer):
			e.Backend = fmt.Sprintf("zookeeper-%d", 1+r.IntN(max(sh.ZKServers, 1)))
			e.For = between(500*time.Millisecond, 5*time.Second)
		case string(faultkind.DropReply):
			if len(sh.RedisCfgs) > 0 {
				e.Config = sh.RedisCfgs[r.IntN(len(sh.RedisCfgs))]
			}
		case string(faultkind.KillProcess):
			e.For = between(0, time.Second) // when, after the call, the replica dies
		case chaosRestartMstr:
			e.Backend = fmt.Sprintf("redlock-%d", 1+r.IntN(max(sh.RedlockN, 1)))
		case string(faultkind.RestartRedis):
			e.Durability = drawDurability(r)
		case string(faultkind.KillConsumer):
			e.Point = drawKillPoint(r)
		case string(faultkind.SlowDB):
			e.Config, e.For = r.IntN(max(sh.Configs, 1)), between(500*time.Millisecond, 3*time.Second)
		case chaosNetLatency, chaosNetCut, chaosNetBlackhole:
			e.Backend = sh.Backends[r.IntN(len(sh.Backends))]
			e.For = between(500*time.Millisecond, 5*time.Second)
			if e.Kind == chaosNetLatency {
				e.Latency = between(50*time.Millisecond, time.Second).Round(time.Millisecond)
			}
		}
		e.For = e.For.Round(time.Millisecond)
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}
