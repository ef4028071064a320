package lessons

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// ZooKeeper ensemble lesson timings: A holds its lock this long, and the
// killed server stays down this long (from the kill: A's hold, B's order
// and the burst all fit in it with seconds to spare).
const (
	zkEnsembleHold = 4 * time.Second
	zkServerDown   = 8 * time.Second
)

// zkEnsembleServerKilled: the zookeeper strategy on the three-server
// ensemble. A on the first replica holds the lock (pause_holder); a
// follower is killed (the one A's session is on when it is a follower);
// B on the other replica is sent while it is down and must wait for A;
// then a burst of buyers on both replicas, still with two servers of
// three. A keeps its lock (its session moves), B and the burst are served,
// nothing is oversold or lost, no sections overlap, and the server comes
// back: the lesson ends only once the ensemble is whole again.
func zkEnsembleServerKilled(ctx context.Context, sc *ScenarioRun) (string, bool, error) {
	t1 := sc.Targets[0]
	v, _, err := sc.C.CreateSale(ctx, t1, shopapi.SaleRequest{Name: "scenario zk-ensemble-server-killed", Strategy: "zookeeper", Stock: 60})
	if err != nil {
		return "", false, err
	}
	if err := sc.warm(ctx, v.ID, t1, sc.last()); err != nil {
		return "", false, err
	}
	a, aHeld, kill, err := sc.holdAndKillZKServer(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	killedAt := time.Now()
	down, _, err := sc.zkServersDown(ctx, t1)
	if err != nil {
		return "", false, err
	}
	bWhileDown := down > 0
	b := sc.C.Order(ctx, shopapi.OrdersURL(sc.last(), v.ID), "buyer-2")
	aKind := <-a
	burst, _ := sc.burst(ctx, v.ID, 16, "c")
	down, _, err = sc.zkServersDown(ctx, t1)
	if err != nil {
		return "", false, err
	}
	burstWhileDown := down > 0
	back, err := sc.waitZKWhole(ctx, t1, killedAt)
	if err != nil {
		return "", false, err
	}
	got, err := sc.settled(ctx, v.ID)
	if err != nil {
		return "", false, err
	}
	session := fmt.Sprintf("buyer-1's session was on it and moved to %s", kill.SessionOn)
	if !kill.SessionWasOn {
		session = fmt.Sprintf("buyer-1's session was on the leader %s and stayed", kill.SessionOn)
	}
	pass := aHeld && aKind == shopapi.KindOrder && bWhileDown && b == shopapi.KindOrder && burst[shopapi.KindOrder] == 16 &&
		got.Oversold == 0 && got.LostUpdates == 0 && got.Violations == 0
	return fmt.Sprintf("killed follower %s while buyer-1 held the lock (%s); buyer-1 %s, buyer-2 (sent with 2 of 3 servers) %s, "+
		"burst %d of 16 orders (server still down after it: %v); the ensemble whole again %.1f s after the kill; %s",
		kill.Killed, session, aKind, b, burst[shopapi.KindOrder], burstWhileDown, back.Seconds(), describe(got)), pass, nil
}

// zkKill is the 202 of kill_zk_server.
type zkKill struct {
	Killed       string `json:"killed"`
	SessionWasOn bool   `json:"session_was_on"`
	SessionOn    string `json:"session_on"`
}

// holdAndKillZKServer makes buyer A on the first target hold the sale's
// lock, then kills a server of the ensemble. The ensemble's kill lock may
// be held by another test's kill (503 zk_ensemble_busy): A then finishes
// and the round starts again with a new A, for up to two minutes.
func (sc *ScenarioRun) holdAndKillZKServer(ctx context.Context, id uint64) (a <-chan string, aHeld bool, kill zkKill, err error) {
	t1 := sc.Targets[0]
	deadline := time.Now().Add(2 * time.Minute)
	for round := 0; ; round++ {
		if err := sc.fault(ctx, t1, map[string]any{"kind": "pause_holder", "ms": zkEnsembleHold.Milliseconds()}); err != nil {
			return nil, false, kill, err
		}
		a = sc.orderAsync(ctx, t1, id, fmt.Sprintf("buyer-1-%d", round))
		if err := sc.waitPaused(ctx, t1); err != nil {
			return nil, false, kill, err
		}
		_, err = sc.C.CallJSON(ctx, http.MethodPost, t1+"/api/faults",
			map[string]any{"kind": "kill_zk_server", "ms": zkServerDown.Milliseconds()}, http.StatusAccepted, &kill)
		var se *shopapi.HTTPStatusError
		if err != nil && errors.As(err, &se) && se.Status == http.StatusServiceUnavailable && time.Now().Before(deadline) {
			<-a // another test has a server down: let A finish, try again
			continue
		}
		if err != nil {
			<-a
			return nil, false, kill, err
		}
		n, err := sc.pausedHolders(ctx, t1)
		if err != nil {
			return nil, false, kill, err
		}
		return a, n > 0, kill, nil
	}
}

// zkServersDown is target's count of ensemble servers it killed that are
// not yet back in a whole ensemble, and its last restart's failure.
func (sc *ScenarioRun) zkServersDown(ctx context.Context, target string) (int, string, error) {
	var out struct {
		Down  *int   `json:"zk_servers_down"`
		Error string `json:"zk_restart_error"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults", nil, http.StatusOK, &out); err != nil {
		return 0, "", err
	}
	if out.Down == nil {
		return 0, "", fmt.Errorf("%s: GET /api/faults has no zk_servers_down (an older shop?)", target)
	}
	return *out.Down, out.Error, nil
}

// waitZKWhole waits until the server target killed serves again in a whole
// ensemble (two minutes at most: a JVM's start on a loaded machine), and
// says how long after the kill that was.
func (sc *ScenarioRun) waitZKWhole(ctx context.Context, target string, killedAt time.Time) (time.Duration, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		down, failed, err := sc.zkServersDown(ctx, target)
		switch {
		case err != nil:
			return 0, err
		case failed != "":
			return 0, fmt.Errorf("the killed ZooKeeper server did not come back: %s", failed)
		case down == 0:
			return time.Since(killedAt), nil
		case time.Now().After(deadline):
			return 0, errors.New("the killed ZooKeeper server is not back in a whole ensemble within 2 minutes")
		}
		if err := load.Sleep(ctx, 200*time.Millisecond); err != nil {
			return 0, err
		}
	}
}
