package contentionlessons

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The durability lesson: the same async sale and the same Redis restart
// under each persistence mode of the stream's Redis, counting the 202
// tickets that never became orders.

// durabilityRound is what one mode's round observed.
type durabilityRound struct {
	Mode                             string
	Accepted                         int   // 202 answers
	Confirmed, Failed, Lost, Pending int   // the tickets' ends (pending: still, at the deadline)
	UndeliveredAtRestart             int64 // the stream's lag seen before the restart
	// UnreadAfterRestart is the entries no consumer had read, read right
	// after the restart while the hold still keeps the consumers busy:
	// unread then, they were unread at the restart, in the stream the
	// restart kept (none keeps nothing: 0).
	UnreadAfterRestart      int64
	Before, After           shopapi.ReconcileView // the repair's
	DriftBefore, DriftAfter int64
}

func (r durabilityRound) String() string {
	return fmt.Sprintf("%s: %d 202s (%d undelivered before the restart, %d unread after it), %d confirmed, %d failed, %d lost, %d still pending; "+
		"drift %d (Redis stock %d, database %d), after repair %d (Redis %d)", r.Mode, r.Accepted, r.UndeliveredAtRestart, r.UnreadAfterRestart,
		r.Confirmed, r.Failed, r.Lost, r.Pending, r.DriftBefore, r.Before.StoreStock, r.Before.DBStock, r.DriftAfter, r.After.StoreStock)
}

// judgeDurability says whether the rounds show the lesson: always loses
// nothing (it fails loudly otherwise) of entries still unread after the
// restart (so something was at risk), none loses the tickets that were
// still undelivered, every ticket ends settled or lost, and the repair
// leaves no drift. everysec is shown, not asserted: a process crash keeps
// the OS page cache, so it usually loses nothing here.
func judgeDurability(rounds []durabilityRound) (problems []string) {
	for _, r := range rounds {
		if r.Accepted == 0 {
			problems = append(problems, r.Mode+": no 202, nothing to lose")
		}
		if r.Pending > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d tickets still pending after the queue drained", r.Mode, r.Pending))
		}
		if r.DriftAfter != 0 {
			problems = append(problems, fmt.Sprintf("%s: drift %d after the repair", r.Mode, r.DriftAfter))
		}
		switch r.Mode {
		case shopapi.DurabilityAlways:
			if r.Lost > 0 {
				problems = append(problems, fmt.Sprintf("LOST %d ACCEPTED ORDERS WITH appendfsync always", r.Lost))
			}
			if r.UnreadAfterRestart < 1 {
				problems = append(problems, "always: no entry unread after the restart: nothing was at risk")
			}
		case shopapi.DurabilityNone:
			if r.Lost == 0 {
				problems = append(problems, "none lost nothing: the restart proved nothing")
			}
		}
	}
	return problems
}

// durabilityHold is how long slow_db holds the sale's row in a round: the
// consumers cannot commit meanwhile, so 202s wait in the stream for the
// restart.
const durabilityHold = 3 * time.Second

// queueDurability runs a round per mode, then puts back the mode it found.
func queueDurability(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	t := sc.Targets[0]
	found, err := sc.C.Durability(ctx, t)
	if err != nil {
		return "", false, fmt.Errorf("reading the durability: %w", err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = sc.C.SetDurability(rctx, t, found)
	}()
	var rounds []durabilityRound
	var parts []string
	for _, mode := range shopapi.DurabilityModes {
		r, err := sc.durabilityRound(ctx, mode, durabilityHold)
		if errors.Is(err, errMissedWindow) {
			// The 30 orders took longer than the hold on a loaded machine,
			// or (always) the consumers read the entries before the restart:
			// nothing waited in the stream to be lost. Once more, with a
			// hold four times as long.
			r, err = sc.durabilityRound(ctx, mode, 4*durabilityHold)
		}
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", mode, err)
		}
		rounds = append(rounds, r)
		parts = append(parts, r.String())
	}
	problems := judgeDurability(rounds)
	observed := strings.Join(parts, " | ")
	if len(problems) > 0 {
		observed = "FAIL: " + strings.Join(problems, "; ") + " | " + observed
	}
	return observed, len(problems) == 0, nil
}

// durabilityRound: an async redis-lua-stock sale whose row slow_db holds;
// 30 buyers get their 202s while the consumers wait on the row; once
// undelivered entries are seen in the stream, the default Redis restarts
// (with the round's mode) and the stream is read again: with always the
// entries must still be there unread (errMissedWindow otherwise: the
// consumers read them between the two reads, nothing was at risk); when
// the hold is over and the queue drained, each ticket is read: 404 is a
// lost order.
func (sc *scenarioRun) durabilityRound(ctx context.Context, mode string, hold time.Duration) (durabilityRound, error) {
	r := durabilityRound{Mode: mode}
	t := sc.Targets[0]
	if err := sc.C.SetDurability(ctx, t, mode); err != nil {
		return r, err
	}
	v, _, err := sc.C.CreateSale(ctx, t, shopapi.SaleRequest{Name: "scenario queue-durability " + mode,
		Strategy: "redis-lua-stock", Stock: 100, PerUserLimit: 1, OrderMode: "async"})
	if err != nil {
		return r, err
	}
	if err := sc.Fault(ctx, t, map[string]any{"kind": faultkind.SlowDB, "ms": hold.Milliseconds(), "sale_id": v.ID}); err != nil {
		return r, err
	}
	holdEnds := time.Now().Add(hold)
	tickets, err := sc.fireTickets(ctx, v.ID, 30)
	if err != nil {
		return r, err
	}
	r.Accepted = len(tickets)
	if r.UndeliveredAtRestart, err = sc.waitUndelivered(ctx, t, holdEnds); err != nil {
		return r, err
	}
	if err := sc.Fault(ctx, t, map[string]any{"kind": faultkind.RestartRedis, "node": "redis"}); err != nil {
		return r, err
	}
	unread, length, err := sc.queueAfterRestart(ctx, t)
	if err != nil {
		return r, err
	}
	r.UnreadAfterRestart = unread
	if mode == shopapi.DurabilityAlways && unread == 0 && length > 0 {
		// The stream came back but nothing in it was unread: the consumers
		// read the entries before the restart (or the hold ran out first).
		// An empty stream goes on: the tickets then show what was lost.
		return r, fmt.Errorf("%w (after the restart: 0 unread, length %d)", errMissedWindow, length)
	}
	states, err := sc.settleTickets(ctx, tickets, holdEnds)
	if err != nil {
		return r, err
	}
	r.Confirmed, r.Failed, r.Lost, r.Pending = states[shopapi.TicketConfirmed], states[shopapi.TicketFailed], states[shopapi.TicketLost], states[shopapi.TicketPending]
	rep, err := sc.C.Repair(ctx, t, v.ID)
	if err != nil {
		return r, err
	}
	r.Before, r.After = rep.Before, rep.After
	r.DriftBefore, r.DriftAfter = rep.Before.Drift, rep.After.Drift
	return r, nil
}

// fireTickets sends n orders at once over the targets and returns the
// tickets of the 202s; any other answer but a 202 is an error here (the
// sale has stock for all).
func (sc *scenarioRun) fireTickets(ctx context.Context, id uint64, n int) ([]string, error) {
	var (
		mu      sync.Mutex
		tickets []string
		other   = map[string]int{}
		wg      sync.WaitGroup
	)
	for i := 0; i < n; i++ {
		target := sc.Targets[i%len(sc.Targets)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			ack, _, ticket, kind := sc.C.OrderAck(ctx, shopapi.OrdersURL(target, id), fmt.Sprintf("q%d", i))
			mu.Lock()
			defer mu.Unlock()
			if ack == shopapi.AckTicket {
				tickets = append(tickets, ticket)
			} else {
				other[kind]++
			}
		}()
	}
	wg.Wait()
	if len(other) > 0 {
		return tickets, fmt.Errorf("%d 202s and other answers %v", len(tickets), other)
	}
	return tickets, nil
}

// errMissedWindow: slow_db's hold ended before an undelivered entry was seen.
var errMissedWindow = errors.New("no undelivered entry in the stream while slow_db held the sale")

// waitUndelivered waits until the stream has entries no consumer has read
// (GET /api/queue lag): those are what a Redis without persistence loses.
func (sc *scenarioRun) waitUndelivered(ctx context.Context, target string, holdEnds time.Time) (int64, error) {
	ctx, cancel := context.WithDeadline(ctx, holdEnds)
	defer cancel()
	for {
		q, err := sc.C.QueueInfo(ctx, target)
		if err == nil && q.Lag > 0 {
			return q.Lag, nil
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("%w (last: %+v, %v)", errMissedWindow, q, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// queueAfterRestart reads the stream once the restarted Redis answers the
// shop again (its clients reconnect: 10 s at most): its length and the
// entries no consumer has read. That is the group's lag, or where Redis
// cannot tell it (-1: a group reloaded from the AOF does not know how
// many entries it had read) the length less the entries delivered and not
// yet acknowledged (acknowledged ones are deleted from the stream).
func (sc *scenarioRun) queueAfterRestart(ctx context.Context, target string) (unread, length int64, err error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		q, err := sc.C.QueueInfo(ctx, target)
		if err == nil || time.Now().After(deadline) {
			return unreadOf(q.Lag, q.Length, q.Pending), q.Length, err
		}
		if err := load.Sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, 0, err
		}
	}
}

// unreadOf is the stream's unread entries: lag, or when Redis does not
// know it (negative) length less pending, never below 0.
func unreadOf(lag, length, pending int64) int64 {
	if lag >= 0 {
		return lag
	}
	return max(0, length-pending)
}

// settleTickets counts the tickets' states once the queue has drained:
// after slow_db's hold (its own stated end: until then a consumer may hold
// a batch it read before the restart, which a Redis without persistence no
// longer shows), until no ticket is pending and two reads agree.
func (sc *scenarioRun) settleTickets(ctx context.Context, tickets []string, holdEnds time.Time) (map[string]int, error) {
	if err := load.Sleep(ctx, time.Until(holdEnds)); err != nil {
		return nil, err
	}
	states, err := load.SettleStates(ctx, sc.C, sc.Targets, tickets)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, tk := range tickets {
		counts[states[tk]]++
	}
	return counts, nil
}
