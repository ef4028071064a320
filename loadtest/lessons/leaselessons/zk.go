package leaselessons

import (
	"context"
	"fmt"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// zkDeadHolder: A on target 1 holds a zookeeper lock and stalls
// (pause_holder 30 s). While A lives, B on target 2 times out: the lock
// holds. Then target 1 is killed (SIGKILL): nobody deletes A's node, but
// its ephemeral node goes with the session, and C on target 2 is served
// within the session timeout. A wrote nothing, so nothing is oversold.
func zkDeadHolder(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	t1, t2 := sc.Targets[0], sc.Targets[1]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario zk-dead-holder", Strategy: "zookeeper", Stock: 10})
	if err != nil {
		return "", false, err
	}
	if err := sc.Warm(ctx, v.ID, t1, t2); err != nil {
		return "", false, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": 30000}); err != nil {
		return "", false, err
	}
	a := sc.OrderAsync(ctx, t1, v.ID, "buyer-1")
	if err := sc.WaitPaused(ctx, t1); err != nil {
		return "", false, err
	}
	b := sc.C.Order(ctx, shopapi.OrdersURL(t2, v.ID), "buyer-2") // waits the replica's whole lock wait
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.KillProcess, "ms": 50}); err != nil {
		return "", false, err
	}
	aKind := <-a
	killed := time.Now()
	c := ""
	for i := 0; c != shopapi.KindOrder && time.Since(killed) < 30*time.Second; i++ {
		if c = sc.C.Order(ctx, shopapi.OrdersURL(t2, v.ID), fmt.Sprintf("buyer-3-%d", i)); c != shopapi.KindOrder && c != "lock_timeout" {
			break
		}
	}
	served := time.Since(killed)
	alive := &lessons.ScenarioRun{C: sc.C, Targets: sc.Targets[1:]} // target 1 is dead: read the sale elsewhere
	got, err := alive.Settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	pass := b == "lock_timeout" && shopapi.IsHardError(aKind) && c == shopapi.KindOrder &&
		got.Sold == 3 && got.Oversold == 0 && got.LostUpdates == 0 && got.Violations == 0
	return fmt.Sprintf("while buyer-1 lived buyer-2 got %s; buyer-1's replica killed, buyer-1's answer %s; buyer-3 %s %d ms after the kill; %s",
		b, aKind, c, served.Milliseconds(), lessons.Describe(got)), pass, nil
}

// zkSessionExpiry: buyer A on target 1 takes the zookeeper lock
// and stalls 4 s before its write (pause_holder); its session is then
// expired from outside (expire_zk_session), which deletes A's ephemeral
// node, so buyer B on target 2 gets the lock at once while A still stalls.
// A believes it holds the lock when it wakes (the pause came after its
// Lost() check): fencing by the node's czxid rejects its stale write.
func zkSessionExpiry(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	t1, t2 := sc.Targets[0], sc.Targets[1]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario zk-session-expiry",
		Strategy: "zookeeper", Stock: 10, Fencing: true})
	if err != nil {
		return "", false, err
	}
	// Warm target 1's session up so that A's Lock does not wait for it.
	if k := sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "warm"); k != shopapi.KindOrder {
		return "", false, fmt.Errorf("warm-up order on %s: %s", t1, k)
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.PauseHolder, "ms": 4000}); err != nil {
		return "", false, err
	}
	a := make(chan string, 1)
	go func() { a <- sc.C.Order(ctx, shopapi.OrdersURL(t1, v.ID), "buyer-1") }()
	if err := sc.WaitPaused(ctx, t1); err != nil { // A holds the lock and stalls
		return "", false, err
	}
	if err := sc.Fault(ctx, t1, map[string]any{"kind": faultkind.ExpireZKSession}); err != nil {
		return "", false, err
	}
	bStart := time.Now()
	b := sc.C.Order(ctx, shopapi.OrdersURL(t2, v.ID), "buyer-2")
	bTook := time.Since(bStart)
	aStalled := len(a) == 0 // A has not answered yet
	aKind := <-a
	got, err := sc.Settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	pass := b == shopapi.KindOrder && aStalled && (aKind == "fenced" || aKind == "lock_lost") &&
		got.Violations >= 1 && got.Oversold == 0 && got.LostUpdates == 0 &&
		(aKind != "fenced" || got.FencedWrites == 1)
	return fmt.Sprintf("buyer-2 (on %s) %s after %d ms while buyer-1 still stalled: %v; buyer-1 (on %s) %s; %s",
		sc.ReplicaName(ctx, t2), b, bTook.Milliseconds(), aStalled, sc.ReplicaName(ctx, t1), aKind, lessons.Describe(got)), pass, nil
}
