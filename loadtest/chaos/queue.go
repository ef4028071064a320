package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The queue in the chaos run: redis-lua-stock sales in order_mode async
// (with and without reservations), whose buyers get 202 tickets. Their
// checker follows every ticket to its end and excuses a lost one only when
// a Redis restart without durable persistence came after it was sent.

// chaosPayWithin is the reservations' pay-by of the async+pay configuration:
// short, so that reservations expire during the run and some payments come
// too late under the faults.
const chaosPayWithin = 2000 * time.Millisecond

// ticketRecord is one 202: whose, and when its request was sent.
type ticketRecord struct {
	user string
	sent time.Time
}

// queueConfigs are the async variants of redis-lua-stock.
func queueConfigs(newConfig func(strategy string) *chaosConfig) []*chaosConfig {
	plain, pay := newConfig("redis-lua-stock"), newConfig("redis-lua-stock")
	plain.Async, pay.Async = true, true
	pay.PayWithinMS = int(chaosPayWithin.Milliseconds())
	return []*chaosConfig{plain, pay}
}

// recordTicket notes a 202.
func (c *chaosConfig) recordTicket(sale uint64, user, ticket string, sent time.Time, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tickets == nil {
		c.tickets = map[uint64]map[string]ticketRecord{}
	}
	if c.tickets[sale] == nil {
		c.tickets[sale] = map[string]ticketRecord{}
	}
	c.tickets[sale][ticket] = ticketRecord{user: user, sent: sent}
	c.kinds[shopapi.KindAccepted]++
	_ = c.hist.RecordValue(max(took.Microseconds(), 1))
}

// payLater follows a ticket of a sale with reservations until it is
// confirmed or failed (3 s at most) and pays a confirmed one; the answer is
// counted under its kind (paid, pay_reservation_expired...). A read that
// says lost (404) or no state before the ticket settles is counted too
// (poll_404, poll_no_state): the shop told a waiting buyer something
// wrong, which the table shows rather than hides.
func (c *chaosConfig) payLater(ctx context.Context, cl *shopapi.Client, target, ticket, user string) {
	deadline := time.Now().Add(3 * time.Second)
	count := func(kind string) {
		c.mu.Lock()
		c.kinds[kind]++
		c.mu.Unlock()
	}
	for ctx.Err() == nil && time.Now().Before(deadline) {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := cl.Ticket(rctx, target, ticket)
		cancel()
		switch {
		case err != nil || v.State == shopapi.TicketPending:
		case v.State == shopapi.TicketConfirmed:
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			count(cl.Pay(pctx, target, ticket, user))
			cancel()
			return
		case v.State == shopapi.TicketFailed:
			count("pay_skipped_failed")
			return
		case v.State == shopapi.TicketLost:
			count("poll_404")
		default:
			count("poll_no_state")
		}
		load.Sleep(ctx, 100*time.Millisecond)
	}
}

// redisRestartRecord is one restart_redis of the run's default Redis and
// the durability it ran with.
type redisRestartRecord struct {
	Mode       string
	Start, End time.Time // the call to the replica and its answer
}

// lossExcuse is the restart that may have lost a ticket sent at sent: the
// first one with a non-durable mode (none, everysec) that ended after it.
// ok is false when none did: a lost ticket is then a broken promise.
func lossExcuse(sent time.Time, restarts []redisRestartRecord) (mode string, ok bool) {
	for _, r := range restarts {
		if r.Mode != shopapi.DurabilityAlways && !r.End.Before(sent) {
			return r.Mode, true
		}
	}
	return "", false
}

// lostModes renders the count of lost tickets per excusing mode.
func lostModes(byMode map[string]int64) string {
	if len(byMode) == 0 {
		return "-"
	}
	modes := make([]string, 0, len(byMode))
	for m := range byMode {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	parts := make([]string, len(modes))
	for i, m := range modes {
		parts[i] = fmt.Sprintf("%s:%d", m, byMode[m])
	}
	return strings.Join(parts, ",")
}

// restartLog keeps the restarts of the default Redis, in the order they
// ended.
type restartLog struct {
	mu  sync.Mutex
	all []redisRestartRecord
}

func (l *restartLog) add(r redisRestartRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, r)
}

func (l *restartLog) list() []redisRestartRecord {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]redisRestartRecord(nil), l.all...)
}

// drawDurability is the persistence a restart_redis of the plan runs with.
func drawDurability(r *rand.Rand) string {
	return shopapi.DurabilityModes[r.IntN(len(shopapi.DurabilityModes))]
}

// drawKillPoint is where a kill_consumer of the plan kills the replica.
func drawKillPoint(r *rand.Rand) string {
	return [...]string{"before_commit", "after_commit"}[r.IntN(2)]
}
