package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/zkensemble"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// nemesis injects a planned schedule of faults into the run's replicas.
type nemesis struct {
	c        *shopapi.Client
	targets  []string
	cluster  *cluster // nil when the run attacks replicas it did not start
	saleOf   func(config int) uint64
	out      io.Writer
	outMu    *sync.Mutex
	start    time.Time
	mu       sync.Mutex
	planned  int               // faults in the plan
	injected map[string]int    // kind -> faults that took effect (on some try)
	missed   map[string]int    // kind -> faults that did not, after every try
	lost     map[string]int    // kind -> faults sent whose answer never came (may have taken effect)
	refused  map[string]int    // kind -> tries the world refused (target down, backend not ready)
	busy     map[string]int    // kind -> of the refused tries, those another process's fault kept out
	reasons  map[string]string // kind -> the last refusal's reason
	harm     []string          // faults that took effect and did not heal (the run fails)
	defects  []string          // faults the shop answered with an error that is not a refusal (the run fails)
	// retryUntil: no try again starts after it (the end of the plan's
	// noisy window), so that what a retry breaks heals before the check.
	retryUntil time.Time
	wg         sync.WaitGroup
	// durable: the replicas have the queue; each restart_redis sets its
	// drawn durability first, one restart at a time (redisMu), and is
	// logged in restarts with its mode.
	durable  bool
	redisMu  sync.Mutex
	restarts *restartLog
	// sentinelMu: one redis-sentinel fault at a time (a second kill while
	// the Sentinels elect would find no master to crash). ensemble: the
	// ZooKeeper ensemble kill_zk_server kills (no servers: none).
	sentinelMu sync.Mutex
	ensemble   zkensemble.Ensemble
	zkLockWait time.Duration // the wait for the ensemble's kill lock (0: zkKillLockWait)
}

// withCounts makes n's counters, empty; it returns n.
func (n *nemesis) withCounts() *nemesis {
	n.injected, n.missed, n.lost, n.refused, n.busy = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	n.reasons = map[string]string{}
	return n
}

// run injects every event at its time, each in its own goroutine (a
// stopped replica must not hold the schedule up), and returns once every
// fault has ended.
func (n *nemesis) run(ctx context.Context, plan []faultEvent) {
	for _, e := range plan {
		load.Sleep(ctx, time.Until(n.start.Add(e.At)))
		if ctx.Err() != nil {
			break
		}
		n.wg.Add(1)
		go func(e faultEvent) {
			defer n.wg.Done()
			n.say("  [%6.1fs] %s\n", e.At.Seconds(), e)
			n.attempt(ctx, e)
		}(e)
	}
	n.wg.Wait()
}

// faultTries bounds the tries of one planned fault; retryPause is the wait
// before the next one. Whether a fault lands depends on the world at that
// moment (the drawn replica is being restarted, the Sentinels are still
// promoting after the last kill, another test holds the ZooKeeper
// ensemble's kill lock): a refusal is no defect, so the fault is tried
// again, on the next replica, while the plan's noisy window lasts.
const (
	faultTries = 3
	retryPause = time.Second
)

// attempt injects e, trying again while the world refuses it, and counts
// the outcome: injected; answer lost (the request reached the replica and
// no answer came back: it may have taken effect, so it is not tried again,
// as an order whose answer was lost is not); not injected (every try
// refused); or a defect (an answer that is no refusal: the fault API
// misbehaved, and the run fails).
func (n *nemesis) attempt(ctx context.Context, e faultEvent) {
	for try := 1; ; try++ {
		err := n.inject(ctx, e)
		outcome := faultOutcome(err)
		last := outcome != faultRefused || try == faultTries || ctx.Err() != nil || !time.Now().Before(n.retryUntil)
		n.mu.Lock()
		switch outcome {
		case faultInjected:
			n.injected[e.Kind]++
		case faultLost:
			n.lost[e.Kind]++
		case faultDefect:
			n.defects = append(n.defects, fmt.Sprintf("%s: %v", e, err))
		case faultRefused:
			n.refused[e.Kind]++
			n.reasons[e.Kind] = err.Error()
			if last {
				n.missed[e.Kind]++
			}
		}
		n.mu.Unlock()
		if err == nil {
			return
		}
		var what string
		switch {
		case outcome == faultInjected:
			what = "injected, with an aftermath other than asked"
		case outcome == faultLost:
			what = "answer lost (it may have taken effect; not tried again)"
		case outcome == faultDefect:
			what = "an answer that is no refusal (a defect)"
		case last:
			what = fmt.Sprintf("not injected (refused, try %d of %d)", try, faultTries)
		default:
			what = "refused, tried again in " + retryPause.String()
		}
		n.say("  [%6.1fs] %s: %s: %v\n", time.Since(n.start).Seconds(), e, what, err)
		if last {
			return
		}
		load.Sleep(ctx, retryPause)
		e.Replica = (e.Replica + 1) % len(n.targets)
	}
}

// The outcomes of one try of a fault.
const (
	faultInjected = iota
	faultRefused  // the world's "not now": tried again
	faultLost     // sent, no answer: may have taken effect
	faultDefect   // answered with an error that is no refusal
)

// faultOutcome classifies a try's error. Injected: kill_redis_master's
// no_failover (the master crashed; the Sentinels promoted nobody). Refused: the request never
// reached the replica (it is down: the dial failed), or the replica
// answered 503 (a backend not ready: no replica in sync, the ensemble
// busy) or 409 (not yet: no ZooKeeper session), or the run's own act (a
// ZooKeeper kill) found the ensemble busy or not whole. Lost: the request
// was sent and no answer came (a replica killed or stopped mid-call, which
// may act on it when it resumes). Any other answer (400, 403, 404, 500) is
// a defect of the fault API or of the run's own requests.
func faultOutcome(err error) int {
	if err == nil {
		return faultInjected
	}
	var h *shopapi.HTTPStatusError
	if errors.As(err, &h) {
		if h.Code == "no_failover" { // the master crashed: the fault acted, its aftermath is the Sentinels'
			return faultInjected
		}
		if h.Status == http.StatusServiceUnavailable || h.Status == http.StatusConflict {
			return faultRefused
		}
		return faultDefect
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return faultRefused
	}
	var ue *url.Error
	if errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return faultLost
	}
	return faultRefused
}

// injectedTotal is how many faults took effect so far, of every kind.
func (n *nemesis) injectedTotal() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	total := 0
	for _, v := range n.injected {
		total += v
	}
	return total
}

// say prints one whole line among the other goroutines' lines.
func (n *nemesis) say(format string, a ...any) {
	n.outMu.Lock()
	defer n.outMu.Unlock()
	fmt.Fprintf(n.out, format, a...)
}

// inject applies one fault and, for the network ones, waits until it has
// healed.
func (n *nemesis) inject(ctx context.Context, e faultEvent) error {
	target := n.targets[e.Replica]
	ms := int(e.For.Milliseconds())
	switch e.Kind {
	case string(faultkind.PauseHolder):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.PauseHolder, "ms": ms})
	case string(faultkind.StopProcess):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.StopProcess, "ms": ms})
	case string(faultkind.KillProcess):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.KillProcess, "ms": ms})
	case string(faultkind.RestartRedis):
		return n.restartRedis(ctx, target, e.Durability)
	case string(faultkind.KillConsumer):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.KillConsumer, "point": e.Point})
	case chaosRestartMstr:
		return n.fault(ctx, target, map[string]any{"kind": faultkind.RestartRedis, "node": e.Backend})
	case string(faultkind.ExpireZKSession):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.ExpireZKSession})
	case string(faultkind.SlowDB):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.SlowDB, "ms": ms, "sale_id": n.saleOf(e.Config)})
	case string(faultkind.DropReply):
		return n.fault(ctx, target, map[string]any{"kind": faultkind.DropReply, "sale_id": n.saleOf(e.Config)})
	case string(faultkind.NestedLock), string(faultkind.SlowWork), string(faultkind.CutDB), string(faultkind.StaleRing):
		return n.fault(ctx, target, map[string]any{"kind": e.Kind, "ms": ms})
	case string(faultkind.CrashAfterSetNX):
		return n.fault(ctx, target, map[string]any{"kind": e.Kind})
	case string(faultkind.HoldReplication), string(faultkind.KillRedisMaster):
		return n.sentinelFault(ctx, e.Replica, e.Kind, ms)
	case string(faultkind.KillZKServer):
		return n.killZKServer(ctx, e)
	}
	np := n.cluster.replicas[e.Replica].proxies[e.Backend]
	if np == nil {
		return fmt.Errorf("no proxy for %s", e.Backend)
	}
	switch e.Kind {
	case chaosNetCut:
		np.cut(ctx, e.For)
		return nil
	case chaosNetLatency:
		return np.toxic(ctx, fmt.Sprintf("lat-%d", e.At), "latency",
			fmt.Sprintf(`{"latency":%d,"jitter":%d}`, e.Latency.Milliseconds(), e.Latency.Milliseconds()/4), e.For)
	case chaosNetBlackhole:
		return np.toxic(ctx, fmt.Sprintf("hole-%d", e.At), "timeout", `{"timeout":0}`, e.For)
	}
	return fmt.Errorf("unknown fault kind %q", e.Kind)
}

// fault is POST target/api/faults, bounded: a stopped replica answers late.
func (n *nemesis) fault(ctx context.Context, target string, body map[string]any) error {
	return n.faultWithin(ctx, target, body, 10*time.Second)
}

func (n *nemesis) faultWithin(ctx context.Context, target string, body map[string]any, bound time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var out map[string]any
	_, err := n.c.CallJSON(ctx, http.MethodPost, target+"/api/faults", body, http.StatusAccepted, &out)
	return err
}

// sentinelFault runs hold_replication or kill_redis_master, one at a time:
// the first waits for a replica in sync (45 s at most), the second for the
// Sentinels' promotion (20 s at most). Any replica can act on the shared
// Sentinel set: when the drawn one does not answer (killed meanwhile), the
// next is asked.
func (n *nemesis) sentinelFault(ctx context.Context, replica int, kind string, ms int) error {
	n.sentinelMu.Lock()
	defer n.sentinelMu.Unlock()
	var err error
	for i := range n.targets {
		target := n.targets[(replica+i)%len(n.targets)]
		err = n.faultWithin(ctx, target, map[string]any{"kind": kind, "ms": ms}, time.Minute)
		var answered *shopapi.HTTPStatusError
		if err == nil || errors.As(err, &answered) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// restartRedis restarts the default Redis; with the queue, it first sets
// the drawn durability, and logs the restart with it (a lost ticket is
// excused only by a non-durable one). A restart whose call failed may
// still have happened: it is logged too.
func (n *nemesis) restartRedis(ctx context.Context, target, mode string) error {
	body := map[string]any{"kind": faultkind.RestartRedis, "node": "redis"}
	if !n.durable {
		return n.fault(ctx, target, body)
	}
	n.redisMu.Lock()
	defer n.redisMu.Unlock()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := n.c.SetDurability(sctx, target, mode)
	cancel()
	if err != nil {
		return fmt.Errorf("setting durability %s: %w", mode, err)
	}
	start := time.Now()
	err = n.fault(ctx, target, body)
	n.restarts.add(redisRestartRecord{Mode: mode, Start: start, End: time.Now()})
	return err
}
