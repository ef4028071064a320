package matrix

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/verdict"
	"github.com/seckill-lab/seckill/loadtest/lessons"
	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// The cell's yardsticks.
const (
	// cellStock outlasts the probers' orders of one cell.
	cellStock = 150
	// unavailableAfter: a sale that sold nothing for this long while the
	// fault struck stopped selling (a prober's order and its pause take a
	// few hundred milliseconds on a loaded machine).
	unavailableAfter = time.Second
	// settleFor is how long after the fault the sale has to sell again
	// before its units are called stuck.
	settleFor = 12 * time.Second
	// burstBuyers order together at a cell's end.
	burstBuyers = 6
	// retryAfter is the pause before a cell that could not run runs again.
	retryAfter = 5 * time.Second
)

// errStruckNoHolder: A left its section before the fault was in place.
var errStruckNoHolder = errors.New("buyer-A's hold ended before the fault was in place")

// runner observes cells on running shops.
type runner struct {
	c       *shopapi.Client
	targets []string
	avail   map[string]shopapi.StrategyInfo
	shop    string // the shop binary a victim replica runs ("" none)
	logDir  string
	replay  string // the command line a cell's replay starts with
}

// cellRun is one cell as it runs: its row, its fault, its sale.
type cellRun struct {
	row   model.Row
	fault faultkind.Name
	sale  uint64
}

// observe runs one cell and returns it judged; an error is a cell that
// could not run (the world refused it, not the lock).
func (rn *runner) observe(ctx context.Context, r model.Row, f faultkind.Name, seed int64) (model.Cell, error) {
	started := time.Now()
	cell := model.Cell{Row: r.Name, Fault: f, Predicted: model.Predict(r, f)}
	if cell.Predicted.Kind == model.NA {
		cell.Kind, cell.WhyEn, cell.WhyZh = model.NA, cell.Predicted.WhyEn, cell.Predicted.WhyZh
		return cell, nil
	}
	if info, ok := rn.avail[r.Strategy.Name]; !ok || !info.Available {
		cell.Kind = model.Skip
		cell.WhyEn = fmt.Sprintf("%s is not available on %s (backends %v): make services-up starts its backend", r.Strategy.Name, rn.targets[0], info.Backends)
		cell.WhyZh = fmt.Sprintf("%s 在 %s 上不可用（后端 %v）：make services-up 会启动它的后端", r.Strategy.Name, rn.targets[0], info.Backends)
		return cell, nil
	}
	st, ok := stages[f]
	if !ok {
		return cell, fmt.Errorf("no stage for fault %s", f)
	}
	cell.Seed = seed
	cell.Replay = fmt.Sprintf("%s --only %s/%s --seed %d", rn.replay, r.Name, f, seed)
	err := rn.run(ctx, &cell, r, f, st, seed)
	if errors.Is(err, errStruckNoHolder) {
		st.holdMS *= 2 // once more with a hold twice as long
	}
	if err != nil && ctx.Err() == nil {
		// The world refused the cell (a ring still settling after the
		// previous fault, a replica slow to come back): once more, on a new
		// sale, after a pause; the second error stands.
		if load.Sleep(ctx, retryAfter) == nil {
			first := err
			cell = model.Cell{Row: r.Name, Fault: f, Predicted: cell.Predicted, Seed: seed, Replay: cell.Replay}
			if err = rn.run(ctx, &cell, r, f, st, seed); err == nil {
				cell.WhyEn += "; run twice, the first time it could not: " + first.Error()
			}
		}
	}
	cell.ElapsedMS = time.Since(started).Milliseconds()
	if err == nil && cell.Kind != model.NA && cell.Kind != model.Skip {
		cell.Finding = cell.Kind != cell.Predicted.Kind
	}
	return cell, err
}

// run is one cell's sale: A put where the fault does harm, the fault, the
// probers until the sale sells again after it, then the database's figures
// and the history check.
func (rn *runner) run(ctx context.Context, cell *model.Cell, r model.Row, f faultkind.Name, st stage, seed int64) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d6174726978))
	targets := slices.Clone(rn.targets)
	rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	var vic *victim
	if st.victim {
		v, err := startVictim(ctx, rn.shop, filepath.Join(rn.logDir, "matrix-victim.log"))
		if err != nil {
			return err
		}
		defer v.stop()
		vic = v
	}
	holder, others, sale, err := rn.place(ctx, saleRequest(r, f, st), targets, vic)
	if err != nil {
		return err
	}
	cell.SaleID = sale
	c := cellRun{row: r, fault: f, sale: sale}
	sc := &lessons.ScenarioRun{C: rn.c, Targets: append([]string{holder}, others...)}
	if err := warm(ctx, rn.c, sale, sc.Targets); err != nil {
		return err
	}
	if err := inject(ctx, sc, []string{holder}, st.before, c); err != nil {
		return err
	}
	a, err := buyerA(ctx, sc, st, r, holder, sale)
	if err != nil {
		return err
	}
	live := others
	if vic == nil {
		// Every replica, the buyer after A on another one first.
		live = append(slices.Clone(others), holder)
	}
	// The fault strikes from A's order on when it was armed before it (A
	// may block the others while it waits for itself), else from now.
	struck := time.Now()
	w := window{aAnswer: a}
	if st.aFirst {
		w.aKind, w.aAt = waitAnswer(ctx, a)
	}
	// The probers order from before the fault strikes: a fault that takes
	// time to strike (a failover, a replica that must catch up first) is
	// watched all along.
	if !st.aFirst {
		struck = time.Now()
	}
	w.p = startProbers(ctx, rn.c, live, sale)
	on := []string{holder}
	switch {
	case st.everywhere:
		on = sc.Targets
	case st.onOther:
		on = others[:1]
	}
	if err := inject(ctx, sc, on, st.during, c); err != nil {
		w.p.halt()
		return err
	}
	if st.holdMS > 0 && st.during != nil && r.IsLock() && len(a) > 0 {
		// A had its answer before the fault was in place (a Redis restart
		// slower than the hold): the fault struck no holder, and what
		// follows would show the lock's hold, not the fault's harm.
		w.p.halt()
		return errStruckNoHolder
	}
	if vic != nil && st.during != nil {
		vic.awaitDeath(ctx) // the window closes only after the kill
	}
	rn.watch(ctx, st, r, &w, struck, live, sale)
	w.killed = vic != nil
	if vic != nil && !vic.awaitDeath(ctx) {
		// The fault never struck (the consumer took no batch there): the
		// cell shows nothing of it.
		return fmt.Errorf("%s did not strike: the replica the matrix started for it (%s) still ran at the cell's end", f, vic.url)
	}
	return rn.settle(ctx, cell, r, sale, w)
}

// saleRequest is the cell's sale: the row's switches, the stage's TTL and
// work.
func saleRequest(r model.Row, f faultkind.Name, st stage) shopapi.SaleRequest {
	req := shopapi.SaleRequest{Name: "matrix " + r.Name + " × " + string(f), Strategy: r.Strategy.Name, Stock: cellStock,
		TTLMS: st.ttlMS, WorkMS: st.workMS, Fencing: r.Fencing, Combine: r.Combine}
	if r.Strategy.Renews {
		on := !r.NoWatchdog
		req.Watchdog = &on
	}
	if r.Async {
		req.OrderMode = "async"
	}
	return req
}

// inject runs the stage's faults (before or during) on each of targets.
func inject(ctx context.Context, sc *lessons.ScenarioRun, targets []string, faults func(cellRun) []map[string]any, c cellRun) error {
	if faults == nil {
		return nil
	}
	for _, t := range targets {
		for _, body := range faults(c) {
			if err := sc.Fault(ctx, t, body); err != nil {
				return fmt.Errorf("%s on %s: %w", body["kind"], t, err)
			}
		}
	}
	return nil
}

// buyerA places A's order: held inside its section (pause_holder, or its
// own slow step), or an order that meets the armed fault.
func buyerA(ctx context.Context, sc *lessons.ScenarioRun, st stage, r model.Row, holder string, sale uint64) (<-chan string, error) {
	switch {
	case st.holdMS > 0 && r.IsLock():
		return sc.StalledOrder(ctx, holder, sale, "buyer-A", st.holdMS)
	case st.waitStall && r.IsLock():
		a := sc.OrderAsync(ctx, holder, sale, "buyer-A")
		early, err := sc.WaitPausedOr(ctx, holder, a)
		if err != nil || early == "" {
			return a, err
		}
		done := make(chan string, 1)
		done <- early
		return done, nil
	}
	return sc.OrderAsync(ctx, holder, sale, "buyer-A"), nil
}

// window is what the probers saw of a cell: A's answer, from when the sale
// had to sell (A's answer, when waiting for a live holder is the lock at
// work), when it sold again after the fault (zero: never), and the
// probers' answers.
type window struct {
	aAnswer     <-chan string
	aKind       string
	aAt         time.Time
	from, again time.Time
	p           *probers
	kinds       map[string]int
	// killed: a replica died in the cell, with the requests it had
	// answered not yet in its recorded history.
	killed bool
}

// watch waits for A's answer and for the sale to sell again after the
// fault, stops the probers, then sends a last burst of buyers.
func (rn *runner) watch(ctx context.Context, st stage, r model.Row, w *window, struck time.Time, live []string, sale uint64) {
	if !st.aFirst {
		w.aKind, w.aAt = waitAnswer(ctx, w.aAnswer)
	}
	w.from = struck
	if st.holderLegit && r.IsLock() && w.aAt.After(w.from) {
		w.from = w.aAt // waiting for a live holder is the lock at work
	}
	// The sale must sell again once the fault is over and A has its
	// answer (a buyer the fault struck may block the others until then).
	after := maxTime(maxTime(w.from, w.aAt), struck.Add(st.lasts()))
	w.again = w.p.waitSold(ctx, after, after.Add(settleFor))
	w.kinds = w.p.halt()
	// A last burst of buyers on every live replica at once, once the sale
	// sells again: a lock that does not exclude shows it, whatever the
	// fault did.
	if !w.again.IsZero() {
		(&lessons.ScenarioRun{C: rn.c, Targets: live}).Contend(ctx, sale, burstBuyers, 2)
	}
}

// settle reads the sale's figures once every replica has written them, and
// its history check, and judges the cell.
func (rn *runner) settle(ctx context.Context, cell *model.Cell, r model.Row, sale uint64, w window) error {
	rest := &lessons.ScenarioRun{C: rn.c, Targets: rn.targets}
	got, err := rest.Settled(ctx, sale)
	if err != nil {
		return err
	}
	if r.Async {
		if got, err = rest.Quiescent(ctx, sale); err != nil {
			return err
		}
	}
	cell.Figures = model.Figures{Stock: int(got.InitialStock), Sold: int(got.Sold), Left: int(got.Stock),
		Oversold: int(got.Oversold), LostUpdates: int(got.LostUpdates), Duplicates: int(got.Duplicates),
		Violations: int(got.Violations), FencedWrites: int(got.FencedWrites)}
	if h, err := rn.c.History(ctx, rn.targets[0], sale); err == nil {
		cell.History = h.Verdict
	}
	judge(cell, got, w)
	return nil
}

// judge gives the cell its word: the database's verdict first (broken,
// overlapped_safe), a history that is not linearizable is broken too; a
// sale that held and never sold again within settleFor is stuck, one that
// sold nothing for unavailableAfter or longer is unavailable.
func judge(cell *model.Cell, got shopapi.SaleView, w window) {
	again, from, p := w.again, w.from, w.p
	v := verdict.Of(verdict.Figures{Oversold: got.Oversold, LostUpdates: got.LostUpdates, Duplicates: got.Duplicates,
		Violations: got.Violations, FencedWrites: got.FencedWrites})
	cell.Kind, cell.WhyEn, cell.WhyZh = v.Kind, v.ReasonEn, v.ReasonZh
	answers := fmt.Sprintf("buyer-A %s; the probers' answers %v", w.aKind, w.kinds)
	if !again.IsZero() {
		answers += fmt.Sprintf("; longest time without a sale from the fault %.1f s", p.longestGap(from, again).Seconds())
	}
	if cell.History == "not_linearizable" && w.killed {
		// The dead replica's last answers never reached its recorded
		// history: an order it committed has no request to explain it.
		// The database judges this cell alone.
		cell.History = "unknown"
		answers += "; the history check does not judge a cell whose replica was killed (its last requests went unrecorded)"
	}
	switch {
	case cell.Kind == model.Broken:
	case cell.History == "not_linearizable":
		cell.Kind = model.Broken
		cell.WhyEn, cell.WhyZh = "the order history is not linearizable: "+v.ReasonEn, "订单历史不可线性化："+v.ReasonZh
	case cell.Kind == model.OverlappedSafe:
	case again.IsZero():
		cell.Kind = model.Stuck
		cell.WhyEn = fmt.Sprintf("sold nothing for %d s after the fault; %d units left unsold", int(settleFor.Seconds()), got.Stock)
		cell.WhyZh = fmt.Sprintf("故障后 %d 秒内没有卖出任何东西；剩余 %d 件未售出", int(settleFor.Seconds()), got.Stock)
	default:
		gap := p.longestGap(from, again)
		if gap >= unavailableAfter {
			cell.Kind, cell.UnavailableMS = model.Unavailable, gap.Milliseconds()
			cell.WhyEn = fmt.Sprintf("sold nothing for %.1f s while the fault struck, then sold again; %s", gap.Seconds(), v.ReasonEn)
			cell.WhyZh = fmt.Sprintf("故障期间 %.1f 秒没有卖出，之后恢复售卖；%s", gap.Seconds(), v.ReasonZh)
		}
	}
	cell.WhyEn += "; " + answers
}

// place creates the sale and chooses where A holds: on the victim when the
// fault kills a replica, on the sale's owner for consistent-hash (its
// orders are served there only), else on the first of targets (shuffled
// by the cell's seed). others are the live replicas besides the holder.
func (rn *runner) place(ctx context.Context, req shopapi.SaleRequest, targets []string, vic *victim) (holder string, others []string, sale uint64, err error) {
	pool := targets
	if vic != nil {
		pool = append([]string{vic.url}, targets...)
	}
	for try := 1; ; try++ {
		v, _, err := rn.c.CreateSale(ctx, pool[0], req)
		if err != nil {
			return "", nil, 0, err
		}
		holder = pool[0]
		if req.Strategy == "consistent-hash" {
			if holder, err = rn.owner(ctx, pool, v.ID); err != nil {
				return "", nil, 0, err
			}
			if vic != nil && holder != vic.url {
				if try < 12 {
					continue // a new sale: its owner may be the victim
				}
				return "", nil, 0, fmt.Errorf("no sale of 12 was owned by the victim replica")
			}
		}
		for _, t := range pool {
			if t != holder {
				others = append(others, t)
			}
		}
		return holder, others, v.ID, nil
	}
}

// owner is the target that owns sale id on consistent-hash's ring. A
// replica that just died (a cell's victim) stays in the ring until its
// heartbeat lapses and may own the sale until then: owner waits (30 s at
// most) for a live one.
func (rn *runner) owner(ctx context.Context, targets []string, id uint64) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, t := range targets {
			var out struct {
				Owns bool `json:"owns"`
			}
			if _, err := rn.c.CallJSON(ctx, http.MethodGet, fmt.Sprintf("%s/api/sales/%d/ring", t, id), nil, http.StatusOK, &out); err != nil {
				return "", err
			}
			if out.Owns {
				return t, nil
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no replica of %v owned sale %d on the ring within 30 s", targets, id)
		}
		if err := load.Sleep(ctx, 500*time.Millisecond); err != nil {
			return "", err
		}
	}
}

// warm places one order on each target so that every replica has built
// the sale's strategy (connections, a ZooKeeper session) before the fault.
// Any answer of the order path will do (a queued sale's accepted, a
// non-owner's not_owner, a short lease's lock_lost); a replica that cannot
// be reached or whose backend is down cannot run the cell.
func warm(ctx context.Context, c *shopapi.Client, sale uint64, targets []string) error {
	for i, t := range targets {
		switch k := c.Order(ctx, shopapi.OrdersURL(t, sale), fmt.Sprintf("warm%d", i)); k {
		case shopapi.KindTransport, "backend_down", "not_found", "db_unavailable":
			return fmt.Errorf("warm-up order on %s: %s", t, k)
		}
	}
	return nil
}

// waitAnswer is A's answer and when it came (a minute at most).
func waitAnswer(ctx context.Context, a <-chan string) (string, time.Time) {
	select {
	case k := <-a:
		return k, time.Now()
	case <-time.After(time.Minute):
		return "no answer within a minute", time.Now()
	case <-ctx.Done():
		return "cancelled", time.Now()
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
