package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Queue is what an async sale's run adds: every 202's ticket followed to
// its end, and the shop's own figures once the queue has drained.
type Queue struct {
	Tickets      int64   `json:"tickets"`        // distinct order tickets in the 202 answers
	AcceptedPerS float64 `json:"accepted_per_s"` // 202s / (load start, or the opening, to the last 202)
	Drained      bool    `json:"drained"`        // the sale's in_flight reached 0 within --drain-timeout
	DrainS       float64 `json:"drain_s"`        // end of the load to in_flight 0 (or to the timeout)
	// The tickets' ends, from GET /api/orders/{ticket}.
	Confirmed     int64            `json:"confirmed"`
	Failed        int64            `json:"failed"`
	FailedReasons map[string]int64 `json:"failed_reasons"`
	Lost          int64            `json:"lost"` // 404: the shop has no trace of an accepted ticket
	// Mismatched: confirmed tickets whose order does not carry the ticket,
	// or whose order another ticket also names (one ticket, one order).
	Mismatched int64 `json:"mismatched"`
	Unsettled  int64 `json:"unsettled"` // still pending or unreadable at the end, or a 202 without a ticket
	// The sale view's figures: confirmed / (last_confirmed_at -
	// first_accepted_at), and 202 -> committed order.
	ConfirmedPerS float64 `json:"confirmed_per_s"`
	ConfirmP50MS  float64 `json:"confirm_p50_ms"`
	ConfirmP99MS  float64 `json:"confirm_p99_ms"`
	// Drift is GET /api/sales/{id}/reconcile after the drain; null when the
	// shop did not answer it.
	Drift *int64 `json:"drift"`
	// Durability is the stream Redis's persistence (none, everysec,
	// always); "" when unknown.
	Durability string `json:"durability"`
}

// Ticket checks: how many at once, and how often a pending one is asked again.
const (
	ticketCheckers = 32
	recheckPeriod  = 250 * time.Millisecond
	// settleGrace is how long pending tickets are asked again after the
	// first pass, past the drain: the sale view and the ticket are read
	// from different places.
	settleGrace = 10 * time.Second
	// driftChecks bounds the re-reads of a nonzero drift: an expiry in
	// progress moves the database and Redis one after the other.
	driftChecks = 5
)

// FollowQueue is the async sale's end of the run: it waits for the queue
// to drain, checks every ticket, reads the reconciliation, and fills
// res.Queue. start is when the load began (a herd's opening).
func FollowQueue(ctx context.Context, c *shopapi.Client, cfg RunConfig, res *Result, id uint64, f figures, start time.Time, stderr io.Writer) {
	q := &Queue{FailedReasons: map[string]int64{}}
	res.Queue = q
	if !f.LastAccepted.IsZero() {
		if s := f.LastAccepted.Sub(start).Seconds(); s > 0 {
			q.AcceptedPerS = round3(float64(res.Accepted) / s)
		}
	}
	tickets := slices.Compact(slices.Sorted(slices.Values(f.Tickets)))
	q.Tickets = int64(len(tickets))
	q.Unsettled = res.Accepted - int64(len(f.Tickets)) // 202s whose ticket could not be read

	loadEnd := time.Now()
	q.Drained = waitDrain(ctx, c, cfg.Targets, id, loadEnd.Add(cfg.DrainTimeout), res.Strategy, stderr)
	q.DrainS = round3(time.Since(loadEnd).Seconds())

	fmt.Fprintf(stderr, "%s: checking %d order tickets\n", res.Strategy, len(tickets))
	checker := shopapi.NewClient(ticketCheckers, cfg.Timeout, cfg.AdminToken)
	defer checker.Close()
	ends, limited := checkTickets(ctx, checker, cfg.Targets, tickets, time.Now().Add(min(settleGrace, cfg.DrainTimeout)))
	if limited > 0 {
		fmt.Fprintf(stderr, "%s: %d ticket reads were rate limited (429) and read again after the wait: the shop's limit per "+
			"client IP on the order routes paced the check (--admin-token is not limited; %s=0 on the shop lifts it)\n",
			res.Strategy, limited, config.EnvOrderRateIP)
	}
	orderOf := map[uint64]bool{}
	for _, e := range ends {
		switch e.state {
		case "confirmed":
			q.Confirmed++
			if orderOf[e.orderID] {
				q.Mismatched++
			}
			orderOf[e.orderID] = true
		case stateMismatched:
			q.Confirmed++
			q.Mismatched++
		case "failed":
			q.Failed++
			q.FailedReasons[e.reason]++
		case stateLost:
			q.Lost++
		default:
			q.Unsettled++
		}
	}
	q.Drift = driftNow(ctx, c, cfg.Targets[0], id)
	q.Durability = durabilityOf(ctx, c, cfg.Targets[0])
}

// FillQueueView copies the shop's queue figures of the final view.
func (q *Queue) FillQueueView(v shopapi.SaleView) {
	if v.Queue == nil {
		return
	}
	q.ConfirmP50MS, q.ConfirmP99MS = v.Queue.ConfirmP50MS, v.Queue.ConfirmP99MS
	q.ConfirmedPerS = confirmedPerS(*v.Queue)
}

// confirmedPerS is the queue's confirmed orders over the time from the
// first 202 to the last confirmation: the rate orders reached the database.
func confirmedPerS(v shopapi.QueueView) float64 {
	if v.FirstAcceptedAt == nil || v.LastConfirmedAt == nil || v.Confirmed == 0 {
		return 0
	}
	s := v.LastConfirmedAt.Sub(*v.FirstAcceptedAt).Seconds()
	if s <= 0 {
		return 0
	}
	return round3(float64(v.Confirmed) / s)
}

// waitDrain polls the sale view until its queue has nothing in flight or
// deadline passes, showing the queue on stderr once a second; it reports
// whether the queue drained. A target that fails is skipped for the next.
func waitDrain(ctx context.Context, c *shopapi.Client, targets []string, id uint64, deadline time.Time, name string, stderr io.Writer) bool {
	began := time.Now()
	lastShown := began
	for i := 0; ; i++ {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SetupTimeout)
		v, _, err := c.Sale(rctx, targets[i%len(targets)], id)
		cancel()
		switch {
		case err != nil:
			if time.Since(lastShown) >= time.Second {
				fmt.Fprintf(stderr, "%s: queue: reading sale %d: %v\n", name, id, err)
			}
		case v.Queue == nil:
			fmt.Fprintf(stderr, "%s: sale %d has no queue figures: is it an async sale on a shop that queues orders?\n", name, id)
			return false
		case v.Queue.InFlight <= 0:
			fmt.Fprintf(stderr, "%s: queue drained in %.1f s: %d accepted, %d confirmed, %d failed\n",
				name, time.Since(began).Seconds(), v.Queue.Accepted, v.Queue.Confirmed, v.Queue.Failed)
			return true
		case time.Since(lastShown) >= time.Second:
			lastShown = time.Now()
			fmt.Fprintf(stderr, "%s: queue draining: %d in flight, %d confirmed, %d failed (%.0f s)\n",
				name, v.Queue.InFlight, v.Queue.Confirmed, v.Queue.Failed, time.Since(began).Seconds())
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			fmt.Fprintf(stderr, "%s: the queue did not drain within the wait\n", name)
			return false
		}
		time.Sleep(recheckPeriod)
	}
}

// stateLost is a ticket the shop answers 404 for; stateUnreadable one it
// gave no usable answer about; stateLimited one whose read the shop's rate
// limit refused (429); stateMismatched a confirmed one whose order is not
// the ticket's.
const (
	stateLost       = "lost"
	stateUnreadable = "unreadable"
	stateLimited    = "limited"
	stateMismatched = "mismatched"
)

// ticketEnd is what the shop says of one ticket.
type ticketEnd struct {
	state   string // pending, confirmed, failed, lost, unreadable, mismatched
	reason  string // failed only
	orderID uint64 // confirmed only
}

// checkTickets asks every ticket's state, ticketCheckers at once over the
// targets in turn, and asks the pending and unreadable ones again until
// none is left or deadline passes (always one pass at least). A read the
// shop's rate limit refused is made again after a second (the least
// Retry-After), however long that takes: the limit paces the check, it
// does not end it. limited counts those refusals.
func checkTickets(ctx context.Context, c *shopapi.Client, targets []string, tickets []string, deadline time.Time) (ends []ticketEnd, limited int64) {
	var refusals atomic.Int64
	ends = make([]ticketEnd, len(tickets))
	todo := make([]int, len(tickets))
	for i := range todo {
		todo[i] = i
	}
	for round := 0; len(todo) > 0; round++ {
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range min(ticketCheckers, len(todo)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					ends[i] = ticketState(ctx, c, targets[(i+round)%len(targets)], tickets[i])
					for ends[i].state == stateLimited && ctx.Err() == nil {
						refusals.Add(1)
						Sleep(ctx, time.Second)
						ends[i] = ticketState(ctx, c, targets[(i+round)%len(targets)], tickets[i])
					}
				}
			}()
		}
		for _, i := range todo {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		todo = todo[:0]
		for i, e := range ends {
			if e.state == "pending" || e.state == stateUnreadable {
				todo = append(todo, i)
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		if len(todo) > 0 {
			time.Sleep(recheckPeriod)
		}
	}
	return ends, refusals.Load()
}

// ticketState is GET target/api/orders/{ticket}.
func ticketState(ctx context.Context, c *shopapi.Client, target, ticket string) ticketEnd {
	var body struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
		Order  *struct {
			ID     uint64 `json:"order_id"`
			Ticket string `json:"order_ticket"`
		} `json:"order"`
	}
	_, err := c.CallJSON(ctx, http.MethodGet, target+"/api/orders/"+ticket, nil, http.StatusOK, &body)
	var se *shopapi.HTTPStatusError
	switch {
	case err == nil && body.State == "confirmed" && (body.Order == nil || body.Order.Ticket != ticket):
		return ticketEnd{state: stateMismatched}
	case err == nil && body.State == "confirmed":
		return ticketEnd{state: body.State, orderID: body.Order.ID}
	case err == nil && (body.State == "failed" || body.State == "pending"):
		return ticketEnd{state: body.State, reason: body.Reason}
	case errors.As(err, &se) && se.Status == http.StatusNotFound:
		return ticketEnd{state: stateLost}
	case errors.As(err, &se) && se.Status == http.StatusTooManyRequests:
		return ticketEnd{state: stateLimited}
	}
	return ticketEnd{state: stateUnreadable}
}

// driftNow is the sale's reconciliation computed now (GET
// /api/sales/{id}/reconcile); a nonzero drift is read again a few times,
// since an expiry in progress moves the two stocks one after the other.
// nil when the shop does not answer it.
func driftNow(ctx context.Context, c *shopapi.Client, target string, id uint64) *int64 {
	var drift *int64
	for range driftChecks {
		var rv shopapi.ReconcileView
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SetupTimeout)
		_, err := c.CallJSON(rctx, http.MethodGet, target+"/api/sales/"+strconv.FormatUint(id, 10)+"/reconcile", nil, http.StatusOK, &rv)
		cancel()
		if err != nil {
			return drift
		}
		drift = &rv.Drift
		if rv.Drift == 0 {
			return drift
		}
		time.Sleep(2 * recheckPeriod)
	}
	return drift
}

// durabilityOf is the stream Redis's persistence mode, "" when unknown.
func durabilityOf(ctx context.Context, c *shopapi.Client, target string) string {
	var d struct {
		Mode string `json:"mode"`
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), SetupTimeout)
	defer cancel()
	if _, err := c.CallJSON(rctx, http.MethodGet, target+"/api/queue/durability", nil, http.StatusOK, &d); err != nil || !shopapi.ValidCode(d.Mode) {
		return ""
	}
	return d.Mode
}

// QueueVerdict judges an async sale's tickets after the regular verdict:
// a broken sale or a failed run stays so; otherwise a ticket confirmed
// with an order not its own, a ticket that did not settle, a lost ticket,
// or a drift fails the run, before hard errors.
func QueueVerdict(v string, q *Queue) string {
	if q == nil || v == VerdictOversold || v == VerdictViolations || v == VerdictFailed {
		return v
	}
	switch {
	case q.Mismatched > 0:
		return VerdictMismatch
	case q.Unsettled > 0:
		return VerdictUnsettled
	case q.Lost > 0:
		return VerdictLost
	case q.Drift != nil && *q.Drift != 0:
		return VerdictDrift
	}
	return v
}

// QueueProblem is the one line that says why an async sale failed its
// tickets, "" when it did not.
func QueueProblem(r Result) string {
	q := r.Queue
	if q == nil {
		return ""
	}
	switch r.Verdict {
	case VerdictMismatch:
		return fmt.Sprintf("%d confirmed tickets do not name an order of their own (the order carries another ticket, or two tickets one order)", q.Mismatched)
	case VerdictUnsettled:
		return fmt.Sprintf("%d of %d accepted orders did not settle (still pending, unreadable, or no ticket in the 202) within --drain-timeout", q.Unsettled, r.Accepted)
	case VerdictLost:
		return fmt.Sprintf("%d accepted tickets are unknown to the shop (404): orders lost after their 202 (durability %s)", q.Lost, orUnknown(q.Durability))
	case VerdictDrift:
		return fmt.Sprintf("the Redis stock drifted from the database by %d after the queue drained", *q.Drift)
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
