package failoverlessons

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// redisFreeze is how long redis-single-point freezes its Redis nodes
// (freeze_redis): over twice a Redis client's 3 s read timeout, so that
// redlock, whose first acquisition waits that timeout on its frozen master
// before the quorum of the two others counts, sells inside the freeze.
const redisFreeze = 7 * time.Second

// redlockFreezeTTL is the redlock sale's TTL: a lock taken after a wait of
// one read timeout on the frozen master must still have validity left.
const redlockFreezeTTL = 10 * time.Second

// singlePointSide is what one strategy's sale showed while its node (the
// one Redis, or one RedLock master of three) was frozen.
type singlePointSide struct {
	strategy string
	node     string         // the frozen node
	sent     map[string]int // answers to the orders sent inside the freeze, whenever they came
	sold     int            // of those, orders answered 201 inside the freeze
	slowest  time.Duration  // the longest an order sent inside the freeze waited for its answer
	after    map[string]int // a burst once every node thawed
	view     shopapi.SaleView
}

func (s singlePointSide) String() string {
	return fmt.Sprintf("%s (%s frozen %v): %d sold inside the freeze; the orders sent in it answered %s (the slowest after %.1f s); "+
		"after the thaw %s; %s", s.strategy, s.node, redisFreeze, s.sold, lessons.KindList(s.sent), s.slowest.Seconds(), lessons.KindList(s.after), lessons.Describe(s.view))
}

// redisSinglePointHolds is the lesson's verdict: while its one node was
// frozen the redis sale sold nothing (its orders waited on the silent node),
// while redlock, one master of three frozen, sold; both sold again after the
// thaw and neither broke an invariant. why names the first failed
// condition.
func redisSinglePointHolds(single, quorum singlePointSide) (ok bool, why string) {
	sent := 0
	for _, n := range single.sent {
		sent += n
	}
	switch {
	case sent == 0:
		return false, single.strategy + ": no order was sent inside the freeze"
	case single.sold != 0:
		return false, fmt.Sprintf("%s sold %d inside the freeze of its one node", single.strategy, single.sold)
	case quorum.sold == 0:
		return false, quorum.strategy + " sold nothing with one master of three frozen"
	case single.after[shopapi.KindOrder] == 0 || quorum.after[shopapi.KindOrder] == 0:
		return false, "no order once the nodes thawed"
	}
	for _, s := range []singlePointSide{single, quorum} {
		if v := s.view; v.Oversold != 0 || v.LostUpdates != 0 || v.Violations != 0 {
			return false, s.strategy + " broke an invariant"
		}
	}
	return true, ""
}

// redisSinglePoint: a redis sale and a redlock sale, each warmed on both
// replicas; then the redis sale's one node and the first of redlock's three
// masters are frozen (freeze_redis, 7 s: they answer nothing, as a hung or
// unreachable server) while buyers keep ordering on both sales, every
// replica; then a burst on each once they thawed. A hung node is not a
// dead one: the redis lock waits on it (an order sent in the freeze is
// answered once it thaws), and redlock's pool, which skips a master whose
// connection fails, waits for a silent one until the read timeout (3 s):
// the slowest answer is shown.
func redisSinglePoint(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	t1 := sc.Targets[0]
	sides := []singlePointSide{{strategy: "redis", node: "redis"}, {strategy: "redlock", node: "redlock-1"}}
	ids := make([]uint64, len(sides))
	for i, s := range sides {
		req := shopapi.SaleRequest{Name: "scenario redis-single-point", Strategy: s.strategy, Stock: 200}
		if s.strategy == "redlock" {
			req.TTLMS = int(redlockFreezeTTL.Milliseconds())
		}
		v, _, err := sc.C.CreateSale(ctx, t1, req)
		if err != nil {
			return "", false, err
		}
		ids[i] = v.ID
		if err := sc.Warm(ctx, v.ID, t1, sc.Last()); err != nil {
			return "", false, err
		}
	}
	// The freezes began after start and were on once the faults answered:
	// an order sent then and answered before start+redisFreeze was inside.
	start := time.Now()
	for _, s := range sides {
		if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.FreezeRedis, "node": s.node, "ms": redisFreeze.Milliseconds()}); err != nil {
			return "", false, err
		}
	}
	thaw := start.Add(redisFreeze)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range sides {
		sides[i].sent = map[string]int{}
		for b, target := range sc.Targets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; time.Now().Before(thaw); n++ {
					sent := time.Now()
					k := sc.C.Order(ctx, shopapi.OrdersURL(target, ids[i]), fmt.Sprintf("frozen%d-%d", b, n))
					mu.Lock()
					sides[i].sent[k]++
					if k == shopapi.KindOrder && time.Now().Before(thaw) {
						sides[i].sold++
					}
					sides[i].slowest = max(sides[i].slowest, time.Since(sent))
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if err := load.Sleep(ctx, time.Until(thaw.Add(500*time.Millisecond))); err != nil {
		return "", false, err
	}
	for i := range sides {
		sides[i].after, _ = sc.Burst(ctx, ids[i], 8, "thawed")
		v, err := sc.Settled(ctx, ids[i])
		if err != nil {
			return "", false, err
		}
		sides[i].view = v
	}
	ok, why := redisSinglePointHolds(sides[0], sides[1])
	out := sides[0].String() + " | " + sides[1].String()
	if !ok {
		out += " | FAIL: " + why
	}
	return out, ok, nil
}
