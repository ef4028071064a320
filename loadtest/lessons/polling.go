package lessons

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The herd of polling-vs-subscribe: pollHerd buyers at once, one order
// each, pollWorkMS of work inside the lock, on each way of waiting.
const (
	pollHerd   = 48
	pollWorkMS = 30
)

// waitSide is what one way of waiting cost the Redis node during the herd.
type waitSide struct {
	strategy string
	how      string // the way it waits, in words
	orders   int    // acquisitions: the orders sold in the herd
	commands int64  // commands the node ran during the herd (every client's)
	cpuMS    float64
	p99MS    float64 // lock wait
	view     shopapi.SaleView
}

// perAcquisition is the node's commands per order sold.
func (w waitSide) perAcquisition() float64 {
	if w.orders == 0 {
		return 0
	}
	return float64(w.commands) / float64(w.orders)
}

func (w waitSide) String() string {
	return fmt.Sprintf("%s (%s): %d orders, %d Redis commands (%.1f per acquisition), Redis CPU %.0f ms, lock wait p99 %.1f ms; %s",
		w.strategy, w.how, w.orders, w.commands, w.perAcquisition(), w.cpuMS, w.p99MS, describe(w.view))
}

// pollingCostsMore is the lesson's verdict: polling ran more Redis commands
// per acquisition than the pub/sub wait and the FIFO hand-over, every side
// sold its herd and none broke an invariant. The CPU and the wait are
// shown, not judged.
func pollingCostsMore(poll, sub, fifo waitSide) (ok bool, why string) {
	for _, w := range []waitSide{poll, sub, fifo} {
		if w.orders == 0 {
			return false, w.strategy + " sold nothing"
		}
		if w.view.Oversold != 0 || w.view.LostUpdates != 0 || w.view.Violations != 0 {
			return false, w.strategy + " broke an invariant"
		}
	}
	for _, w := range []waitSide{sub, fifo} {
		if poll.perAcquisition() <= w.perAcquisition() {
			return false, fmt.Sprintf("polling (%.1f commands per acquisition) is no dearer than %s (%.1f)",
				poll.perAcquisition(), w.strategy, w.perAcquisition())
		}
	}
	return true, ""
}

// pollingVsSubscribe: the same herd (48 buyers at once over the replicas,
// 30 ms of work) on three ways to wait for a Redis lock, one sale after the
// other on the same node: redis-no-owner's wait is the teaching variants'
// polling loop (SET NX, then sleep 1-20 ms, jittered, doubling), redisson's
// a pub/sub channel its unlock publishes to, redis's a FIFO queue in Redis
// that hands the lock to the next waiter. The node's command count and CPU
// seconds are read before and after each herd.
func pollingVsSubscribe(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	sides := []waitSide{
		{strategy: "redis-no-owner", how: "polls SET NX"},
		{strategy: "redisson", how: "waits on pub/sub"},
		{strategy: "redis", how: "FIFO hand-over"},
	}
	for i := range sides {
		if err := sc.waitHerd(ctx, &sides[i]); err != nil {
			return "", false, err
		}
	}
	ok, why := pollingCostsMore(sides[0], sides[1], sides[2])
	parts := make([]string, len(sides))
	for i, w := range sides {
		parts[i] = w.String()
	}
	out := strings.Join(parts, " | ")
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// waitHerd runs one side's herd and fills in its figures.
func (sc *ScenarioRun) waitHerd(ctx context.Context, w *waitSide) error {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario polling-vs-subscribe", Strategy: w.strategy,
		Stock: pollHerd + 2, WorkMS: pollWorkMS})
	if err != nil {
		return err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return err
	}
	before, err := sc.redisStats(ctx, "redis")
	if err != nil {
		return err
	}
	kinds, _ := sc.burst(ctx, v.ID, pollHerd, "herd")
	after, err := sc.redisStats(ctx, "redis")
	if err != nil {
		return err
	}
	w.orders = kinds[shopapi.KindOrder]
	w.commands = after.lockCommands() - before.lockCommands()
	w.cpuMS = 1000 * (after.CPUSys + after.CPUUser - before.CPUSys - before.CPUUser)
	if w.p99MS, err = sc.lockWaitP99(ctx, v.ID, pollHerd+2); err != nil {
		return err
	}
	w.view, err = sc.settled(ctx, v.ID)
	return err
}

// redisStats is GET /api/faults/redis-stats for node, on the first target.
type redisStats struct {
	ByName  map[string]int64 `json:"by_name"`
	CPUSys  float64          `json:"used_cpu_sys"`
	CPUUser float64          `json:"used_cpu_user"`
}

// notLockCommands are the commands of the probes, not of the locks: the
// stats' own INFO and connection handshake, the replicas' health PINGs.
var notLockCommands = map[string]bool{"info": true, "hello": true, "client|setinfo": true, "ping": true}

// lockCommands is every command the node ran but notLockCommands.
func (st redisStats) lockCommands() int64 {
	var n int64
	for name, calls := range st.ByName {
		if !notLockCommands[name] {
			n += calls
		}
	}
	return n
}

func (sc *ScenarioRun) redisStats(ctx context.Context, node string) (redisStats, error) {
	var st redisStats
	_, err := sc.C.CallJSON(ctx, http.MethodGet, sc.Targets[0]+"/api/faults/redis-stats?node="+url.QueryEscape(node), nil, http.StatusOK, &st)
	return st, err
}

// lockWaitP99 is the sale's lock wait p99 in ms (GET /api/sales/{id}/live,
// merged over the replicas), once requests orders are published (10 s at
// most: the replicas publish every second).
func (sc *ScenarioRun) lockWaitP99(ctx context.Context, id uint64, requests int) (float64, error) {
	u := sc.Targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/live"
	for deadline := time.Now().Add(10 * time.Second); ; {
		var l struct {
			Requests int64 `json:"requests"`
			LockWait struct {
				P99 float64 `json:"p99"`
			} `json:"lock_wait_ms"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, u, nil, http.StatusOK, &l); err != nil {
			return 0, err
		}
		if l.Requests >= int64(requests) || time.Now().After(deadline) {
			return l.LockWait.P99, nil
		}
		if err := load.Sleep(ctx, 250*time.Millisecond); err != nil {
			return 0, err
		}
	}
}
