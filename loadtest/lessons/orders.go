package lessons

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// OrderAsync places an order in the background; the channel gets its kind.
func (sc *ScenarioRun) OrderAsync(ctx context.Context, target string, id uint64, user string) <-chan string {
	ch := make(chan string, 1)
	go func() { ch <- sc.C.Order(ctx, shopapi.OrdersURL(target, id), user) }()
	return ch
}

// Last is the second replica when there are two or more, else the first:
// where the "other" buyer goes.
func (sc *ScenarioRun) Last() string { return sc.Targets[len(sc.Targets)-1] }

// Warm places one order on each target so that every replica has built the
// sale's strategy (connections, ZooKeeper session) before the timed part.
func (sc *ScenarioRun) Warm(ctx context.Context, id uint64, targets ...string) error {
	for i, t := range targets {
		if k := sc.C.Order(ctx, shopapi.OrdersURL(t, id), fmt.Sprintf("warm%d", i)); k != shopapi.KindOrder {
			return fmt.Errorf("warm-up order on %s: %s", t, k)
		}
	}
	return nil
}

// Burst sends n orders at once, spread round-robin over the targets, and
// counts the outcome kinds; it also returns how long the burst took.
func (sc *ScenarioRun) Burst(ctx context.Context, id uint64, n int, prefix string) (map[string]int, time.Duration) {
	return sc.BurstOn(ctx, id, sc.Targets, n, prefix)
}

// BurstOn is burst over the given targets.
func (sc *ScenarioRun) BurstOn(ctx context.Context, id uint64, targets []string, n int, prefix string) (map[string]int, time.Duration) {
	var (
		mu    sync.Mutex
		kinds = map[string]int{}
		wg    sync.WaitGroup
	)
	start := time.Now()
	for i := 0; i < n; i++ {
		target := targets[i%len(targets)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := sc.C.Order(ctx, shopapi.OrdersURL(target, id), fmt.Sprintf("%s%d", prefix, i))
			mu.Lock()
			kinds[k]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return kinds, time.Since(start)
}
