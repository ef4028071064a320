package contentionlessons

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The herds of polling-vs-subscribe: pollHerd buyers at once over the
// replicas, one order each, with pollWorkMS of work inside the lock (the
// judged herd), then with pollShortWorkMS (shown, not judged: polling's
// cost depends on how long the holder holds).
const (
	pollHerd        = 48
	pollWorkMS      = 30
	pollShortWorkMS = 5
)

// lockRequests are the commands each Redis lock of the lesson sends the
// node, by their INFO commandstats names: redis-no-owner's try (SET NX PX)
// and release (GETDEL); redisson's and redis's scripts (EVALSHA, and EVAL
// when the node does not have the script yet), redisson's one pattern
// subscription per replica (PSUBSCRIBE), redis's wait for its hand-over
// (BLPOP). The commands a script runs inside count under their own names,
// not these; so does the shop's other use of the node.
var lockRequests = map[string][]string{
	"redis-no-owner": {"set", "getdel"},
	"redisson":       {"evalsha", "eval", "psubscribe"},
	"redis":          {"evalsha", "eval", "blpop"},
}

// waitSide is what one lock cost its server during one herd.
type waitSide struct {
	strategy string
	how      string // the way it waits, in words
	workMS   int
	zk       bool // a ZooKeeper lock: requests are its sessions' packets
	orders   int  // acquisitions: the orders sold in the herd
	// requests: on Redis, the node's calls of the lock's command names
	// (lockRequests); on ZooKeeper, the packets both replicas' sessions
	// sent the server, by request type (heartbeat pings included).
	requests map[string]int64
	all      int64   // Redis: every command the node ran (notLockCommands excepted)
	cpuMS    float64 // Redis: the node's CPU
	wakeups  int64   // ZooKeeper: watch events that woke a waiter
	p99MS    float64 // lock wait
	view     shopapi.SaleView
}

// total is the side's requests.
func (w waitSide) total() int64 {
	var n int64
	for _, c := range w.requests {
		n += c
	}
	return n
}

// perAcquisition is the side's requests per order sold.
func (w waitSide) perAcquisition() float64 {
	if w.orders == 0 {
		return 0
	}
	return float64(w.total()) / float64(w.orders)
}

// breakdown lists requests by name, the most first ("SET 2008, GETDEL 48").
func (w waitSide) breakdown() string {
	names := slices.Collect(maps.Keys(w.requests))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(w.requests[b], w.requests[a]), cmp.Compare(a, b))
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		if w.requests[n] == 0 {
			continue
		}
		label := n
		if !w.zk {
			label = strings.ToUpper(n)
		}
		parts = append(parts, fmt.Sprintf("%s %d", label, w.requests[n]))
	}
	return strings.Join(parts, ", ")
}

func (w waitSide) String() string {
	head := fmt.Sprintf("%s (%s; %d ms of work): %d orders, ", w.strategy, w.how, w.workMS, w.orders)
	tail := fmt.Sprintf("lock wait p99 %.1f ms; %s", w.p99MS, lessons.Describe(w.view))
	if w.zk {
		return head + fmt.Sprintf("the replicas' sessions sent ZooKeeper %d requests (%s), %.1f per acquisition; %d waiters woken "+
			"by a watch for %d delete requests; ", w.total(), w.breakdown(), w.perAcquisition(), w.wakeups, w.requests["delete"]) + tail
	}
	return head + fmt.Sprintf("the lock sent Redis %d commands (%s), %.1f per acquisition; the node ran %d in all; Redis CPU %.0f ms; ",
		w.total(), w.breakdown(), w.perAcquisition(), w.all, w.cpuMS) + tail
}

// waitingVerdict is the lesson's verdict: on the 30 ms herd, polling sent
// the Redis node more of its lock's commands per acquisition than
// redisson's lock and redis's did; ZooKeeper's waiters were woken by a
// watch (at least one was) and each node deleted woke at most one waiter
// (the one behind it, not the herd); every side of both herds sold and
// broke no invariant. The short herd's comparison, the CPU and the waits
// are shown, not judged.
func waitingVerdict(poll, sub, fifo, zk waitSide, short []waitSide) (ok bool, why string) {
	for _, w := range append([]waitSide{poll, sub, fifo, zk}, short...) {
		if w.orders == 0 {
			return false, fmt.Sprintf("%s (%d ms of work) sold nothing", w.strategy, w.workMS)
		}
		if w.view.Oversold != 0 || w.view.LostUpdates != 0 || w.view.Violations != 0 {
			return false, fmt.Sprintf("%s (%d ms of work) broke an invariant", w.strategy, w.workMS)
		}
	}
	for _, w := range []waitSide{sub, fifo} {
		if poll.perAcquisition() <= w.perAcquisition() {
			return false, fmt.Sprintf("polling (%.1f commands per acquisition) is no dearer than %s (%.1f)",
				poll.perAcquisition(), w.strategy, w.perAcquisition())
		}
	}
	switch deleted := zk.requests["delete"]; {
	case zk.wakeups == 0:
		return false, "no ZooKeeper waiter was woken by a watch: none waited on one"
	case zk.wakeups > deleted:
		return false, fmt.Sprintf("%d ZooKeeper waiters woken for %d delete requests: a deletion woke more than the waiter behind it",
			zk.wakeups, deleted)
	}
	return true, ""
}

// pollingVsSubscribe: the same herd (48 buyers at once over the replicas,
// 30 ms of work) on four locks whose waits differ, one sale after the
// other: redis-no-owner polls SET NX (pollLock: a sleep of 0.5-1.5 times
// a step that starts at 1 ms and doubles to 20 ms), redisson waits on
// pub/sub, redis on a FIFO hand-over, all three on the same Redis node,
// and zookeeper's waiters watch the node before their own. Then the three
// Redis locks again with 5 ms of work, shown and not judged.
func pollingVsSubscribe(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	redisSides := func(workMS int) []waitSide {
		return []waitSide{
			{strategy: "redis-no-owner", how: "polls SET NX", workMS: workMS},
			{strategy: "redisson", how: "waits on pub/sub", workMS: workMS},
			{strategy: "redis", how: "FIFO hand-over", workMS: workMS},
		}
	}
	sides := append(redisSides(pollWorkMS), waitSide{strategy: "zookeeper", how: "watches the node before its own",
		workMS: pollWorkMS, zk: true})
	short := redisSides(pollShortWorkMS)
	for _, herd := range [][]waitSide{sides, short} {
		for i := range herd {
			if err := sc.waitHerd(ctx, &herd[i]); err != nil {
				return "", false, err
			}
		}
	}
	ok, why := waitingVerdict(sides[0], sides[1], sides[2], sides[3], short)
	var parts []string
	for _, w := range sides {
		parts = append(parts, w.String())
	}
	out := strings.Join(parts, " | ") + " | shown, not judged, with 5 ms of work: "
	parts = parts[:0]
	for _, w := range short {
		parts = append(parts, w.String())
	}
	out += strings.Join(parts, " | ")
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}

// waitHerd runs one side's herd and fills in its figures: the server's
// counters are read after the warm-up orders (one per replica, which open
// the connections and sessions) and after the herd.
func (sc *scenarioRun) waitHerd(ctx context.Context, w *waitSide) error {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario polling-vs-subscribe", Strategy: w.strategy,
		Stock: int64(pollHerd + len(sc.Targets)), WorkMS: w.workMS})
	if err != nil {
		return err
	}
	if err := sc.Warm(ctx, v.ID, sc.Targets...); err != nil {
		return err
	}
	if w.zk {
		before, err := sc.zkStats(ctx)
		if err != nil {
			return err
		}
		kinds, _ := sc.Burst(ctx, v.ID, pollHerd, "herd")
		after, err := sc.zkStats(ctx)
		if err != nil {
			return err
		}
		w.orders = kinds[shopapi.KindOrder]
		w.requests = map[string]int64{}
		for op, n := range after.Requests {
			if d := n - before.Requests[op]; d != 0 {
				w.requests[op] = d
			}
		}
		w.wakeups = after.Wakeups - before.Wakeups
	} else {
		before, err := sc.redisStats(ctx, "redis")
		if err != nil {
			return err
		}
		kinds, _ := sc.Burst(ctx, v.ID, pollHerd, "herd")
		after, err := sc.redisStats(ctx, "redis")
		if err != nil {
			return err
		}
		w.orders = kinds[shopapi.KindOrder]
		w.requests = map[string]int64{}
		for _, name := range lockRequests[w.strategy] {
			if d := after.ByName[name] - before.ByName[name]; d != 0 {
				w.requests[name] = d
			}
		}
		w.all = after.lockCommands() - before.lockCommands()
		w.cpuMS = 1000 * (after.CPUSys + after.CPUUser - before.CPUSys - before.CPUUser)
	}
	if w.p99MS, err = sc.lockWaitP99(ctx, v.ID, pollHerd+len(sc.Targets)); err != nil {
		return err
	}
	w.view, err = sc.Settled(ctx, v.ID)
	return err
}

// redisStats is GET /api/faults/redis-stats for node, on the first target.
type redisStats struct {
	ByName  map[string]int64 `json:"by_name"`
	CPUSys  float64          `json:"used_cpu_sys"`
	CPUUser float64          `json:"used_cpu_user"`
}

// notLockCommands are the commands no lock of the lesson sends: the
// stats' own INFO, the connection handshakes (HELLO, CLIENT SETINFO: the
// probe's and every new pooled connection's), the replicas' health PINGs.
var notLockCommands = map[string]bool{"info": true, "hello": true, "client|setinfo": true, "ping": true}

// lockCommands is every command the node ran but notLockCommands: the
// locks' requests, the commands their scripts ran inside, and the shop's
// other use of the node (its reconciler's lease, its order queue's reads).
func (st redisStats) lockCommands() int64 {
	var n int64
	for name, calls := range st.ByName {
		if !notLockCommands[name] {
			n += calls
		}
	}
	return n
}

func (sc *scenarioRun) redisStats(ctx context.Context, node string) (redisStats, error) {
	var st redisStats
	_, err := sc.C.CallJSON(ctx, http.MethodGet, sc.Targets[0]+"/api/faults/redis-stats?node="+url.QueryEscape(node), nil, http.StatusOK, &st)
	return st, err
}

// zkStats is GET /api/faults/zk-stats summed over the targets: what every
// replica's ZooKeeper session sent the server, and its waiters' wake-ups.
type zkStats struct {
	Requests map[string]int64 `json:"requests"`
	Wakeups  int64            `json:"wakeups"`
}

func (sc *scenarioRun) zkStats(ctx context.Context) (zkStats, error) {
	sum := zkStats{Requests: map[string]int64{}}
	for _, t := range sc.Targets {
		var st zkStats
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, t+"/api/faults/zk-stats", nil, http.StatusOK, &st); err != nil {
			return zkStats{}, err
		}
		for op, n := range st.Requests {
			sum.Requests[op] += n
		}
		sum.Wakeups += st.Wakeups
	}
	return sum, nil
}

// lockWaitP99 is the sale's lock wait p99 in ms (GET /api/sales/{id}/live,
// merged over the replicas), once requests orders are published (10 s at
// most: the replicas publish every second).
func (sc *scenarioRun) lockWaitP99(ctx context.Context, id uint64, requests int) (float64, error) {
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
