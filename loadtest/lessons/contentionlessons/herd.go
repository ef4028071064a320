package contentionlessons

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// A herd: many buyers per unit, ready before the opening and all firing at
// it. The two herd lessons run one on a redis sale and read the verdict
// from the database (the sale view) and the replicas' live figures (the
// answers per layer); the client's clock only describes, never decides.

// herdAnswer is one order answer as the herd saw it.
type herdAnswer struct {
	status     int
	code       string // the error code; "" for 201 and transport failures
	layer      string // the Seckill-Layer header
	retryAfter bool
	sent, done time.Time
}

// herdSpec is the herd: buyers in turn over a pool of workers, each buyer
// clicking clicks times at once (a bot, or an impatient thumb) until the
// first click that bought.
type herdSpec struct {
	buyers, clicks, workers int
	prefix                  string
}

// herdSale is a redis sale opening openIn after its creation, with the
// guards given (JSON members of POST /api/sales).
func (sc *scenarioRun) herdSale(ctx context.Context, name string, stock int64, guards map[string]any) (uint64, time.Time, error) {
	body := map[string]any{"name": name, "strategy": "redis", "stock": stock, "work_ms": 1, "opens_in_ms": 300}
	for k, v := range guards {
		body[k] = v
	}
	var v struct {
		ID      uint64    `json:"id"`
		OpensAt time.Time `json:"opens_at"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodPost, sc.Targets[0]+"/api/sales", body, http.StatusCreated, &v); err != nil {
		return 0, time.Time{}, err
	}
	sc.Note(v.ID) // created outside CreateSale: recorded here, so that the band follows it from its opening
	if v.OpensAt.IsZero() {
		return 0, time.Time{}, fmt.Errorf("sale %d: no opens_at in the answer (a shop without the opening?)", v.ID)
	}
	return v.ID, v.OpensAt, nil
}

// herd waits for the opening, then runs h against sale id; it returns
// every answer.
func (sc *scenarioRun) herd(ctx context.Context, id uint64, opensAt time.Time, h herdSpec) []herdAnswer {
	if err := load.Sleep(ctx, time.Until(opensAt)); err != nil {
		return nil
	}
	var (
		mu  sync.Mutex
		all []herdAnswer
		wg  sync.WaitGroup
	)
	next := make(chan int)
	for w := range h.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := shopapi.OrdersURL(sc.Targets[w%len(sc.Targets)], id) // one buyer, one replica: a browser's connection
			for b := range next {
				got := sc.clicks(ctx, url, h.prefix+strconv.Itoa(b), h.clicks)
				mu.Lock()
				all = append(all, got...)
				mu.Unlock()
			}
		}()
	}
	for b := range h.buyers {
		next <- b
	}
	close(next)
	wg.Wait()
	return all
}

// clicks sends n orders for user at once.
func (sc *scenarioRun) clicks(ctx context.Context, url, user string, n int) []herdAnswer {
	out := make([]herdAnswer, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = sc.herdOrder(ctx, url, user)
		}()
	}
	wg.Wait()
	return out
}

// herdOrder is one POST of an order, read down to its status, error code,
// layer and Retry-After.
func (sc *scenarioRun) herdOrder(ctx context.Context, url, user string) (a herdAnswer) {
	a.sent = time.Now()
	defer func() { a.done = time.Now() }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"user_id":"`+user+`"}`))
	if err != nil {
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := sc.C.Http.Do(req)
	if err != nil {
		return a
	}
	defer resp.Body.Close()
	a.status, a.layer, a.retryAfter = resp.StatusCode, resp.Header.Get("Seckill-Layer"), resp.Header.Get("Retry-After") != ""
	var e shopapi.APIErrorBody
	if resp.StatusCode != http.StatusCreated && json.NewDecoder(io.LimitReader(resp.Body, shopapi.MaxErrorBody)).Decode(&e) == nil && shopapi.ValidCode(e.Error) {
		a.code = e.Error
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return a
}

// herdTruth is what the database and the live figures say of a herd's sale.
type herdTruth struct {
	view     shopapi.SaleView
	sections int64            // critical sections run under the lock
	layers   map[string]int64 // answers per layer, all replicas
	lockWait struct{ mean, p99 float64 }
}

// truth reads sale id once every replica has written its sections and
// published figures for at least answered requests (they publish every
// second; 15 s at most, then what is there).
func (sc *scenarioRun) truth(ctx context.Context, id uint64, answered int) (herdTruth, error) {
	var t herdTruth
	v, raw, err := sc.C.SettledSale(ctx, sc.Targets, id)
	if err != nil {
		return t, err
	}
	var cycle struct {
		LockCycle struct {
			Sections int64 `json:"sections"`
		} `json:"lock_cycle"`
	}
	if err := json.Unmarshal(raw, &cycle); err != nil {
		return t, err
	}
	t.view, t.sections = v, cycle.LockCycle.Sections
	url := sc.Targets[0] + "/api/sales/" + strconv.FormatUint(id, 10) + "/live"
	for deadline := time.Now().Add(15 * time.Second); ; {
		var l struct {
			Layers   map[string]int64 `json:"layers"`
			LockWait struct {
				Mean float64 `json:"mean"`
				P99  float64 `json:"p99"`
			} `json:"lock_wait_ms"`
		}
		if _, err := sc.C.CallJSON(ctx, http.MethodGet, url, nil, http.StatusOK, &l); err != nil {
			return t, err
		}
		t.layers, t.lockWait.mean, t.lockWait.p99 = l.Layers, l.LockWait.Mean, l.LockWait.P99
		var n int64
		for _, c := range l.Layers {
			n += c
		}
		if n >= int64(answered) || time.Now().After(deadline) {
			return t, nil
		}
		if err := load.Sleep(ctx, 250*time.Millisecond); err != nil {
			return t, err
		}
	}
}

// exact: every unit sold, none twice, nothing broken.
func (t herdTruth) exact() bool {
	v := t.view
	return v.Sold == v.InitialStock && v.Stock == 0 && v.Oversold == 0 && v.Duplicates == 0 &&
		v.LostUpdates == 0 && v.Violations == 0
}

// layersText is the live answers per layer, sorted by name.
func (t herdTruth) layersText() string {
	keys := make([]string, 0, len(t.layers))
	for k, n := range t.layers {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, t.layers[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// answered counts the answers that came (an HTTP status at all).
func answered(all []herdAnswer) int {
	n := 0
	for _, a := range all {
		if a.status != 0 {
			n++
		}
	}
	return n
}

// afterSellOut is the answers sent after the first sold-out answer came
// back, and their rate from then to the last answer.
func afterSellOut(all []herdAnswer) (after []herdAnswer, perS float64) {
	var first, last time.Time
	for _, a := range all {
		if a.code == shopapi.KindSoldOut && (first.IsZero() || a.done.Before(first)) {
			first = a.done
		}
		if a.done.After(last) {
			last = a.done
		}
	}
	if first.IsZero() {
		return nil, 0
	}
	for _, a := range all {
		if a.sent.After(first) {
			after = append(after, a)
		}
	}
	if d := last.Sub(first).Seconds(); d > 0 {
		perS = float64(len(after)) / d
	}
	return after, perS
}

func countLayer(all []herdAnswer, layer string) int {
	n := 0
	for _, a := range all {
		if a.layer == layer {
			n++
		}
	}
	return n
}

// herdSoldOutCache: 20 units, 600 buyers (64 at a time) firing at the
// opening of a redis sale, with the sold-out cache off, then on. Without
// it every sold-out answer queues for the lock to read stock 0; with it,
// once the stock of record reads 0, the replicas answer from memory.
func herdSoldOutCache(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	var sections [2]int64
	for i, cache := range []bool{false, true} {
		id, opens, err := sc.herdSale(ctx, "scenario herd-sold-out-cache", 20, map[string]any{"sold_out_cache": cache})
		if err != nil {
			return "", false, err
		}
		all := sc.herd(ctx, id, opens, herdSpec{buyers: 600, clicks: 1, workers: 64, prefix: "h"})
		t, err := sc.truth(ctx, id, answered(all))
		if err != nil {
			return "", false, err
		}
		after, rate := afterSellOut(all)
		fromCache := countLayer(after, "sold_out_cache")
		sections[i] = t.sections
		if cache {
			// Most answers after the sell-out came from memory: only the
			// buyers already queued for the lock, and those before the
			// replicas learned it, still took the lock.
			pass = pass && t.exact() && t.layers["sold_out_cache"] > 0 && 2*fromCache > len(after)
		} else {
			pass = pass && t.exact() && t.layers["sold_out_cache"] == 0 && fromCache == 0
		}
		parts = append(parts, fmt.Sprintf("cache %v: %d answers after the sell-out at %.0f/s, %d of them from the cache; "+
			"%d sections under the lock, lock wait mean %.1f ms p99 %.1f ms; layers %s; %s",
			cache, len(after), rate, fromCache, t.sections, t.lockWait.mean, t.lockWait.p99, t.layersText(), describeHerd(t.view)))
	}
	pass = pass && sections[1] < sections[0]
	return strings.Join(parts, " | "), pass, nil
}

// herdRateLimit: 20 units, 150 buyers who each click three times at once,
// firing at the opening of a redis sale (sold-out cache off, so that every
// click that passes the guards reaches the lock), without a rate limit and
// then with rate_limit_user 1/s: the second and third clicks get 429
// rate_limited before the lock, so fewer sections take it, and the stock
// still sells exactly.
func herdRateLimit(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	var sides [2]rateSide
	for i, limit := range []int{0, 1} {
		id, opens, err := sc.herdSale(ctx, "scenario herd-rate-limit", 20,
			map[string]any{"sold_out_cache": false, "rate_limit_user": limit})
		if err != nil {
			return "", false, err
		}
		all := sc.herd(ctx, id, opens, herdSpec{buyers: 150, clicks: 3, workers: 50, prefix: "r"})
		t, err := sc.truth(ctx, id, answered(all))
		if err != nil {
			return "", false, err
		}
		s := rateSide{limit: limit, limitedOK: true, truth: t}
		var bought []time.Duration
		for _, a := range all {
			if a.code == "rate_limited" {
				s.limited++
				s.limitedOK = s.limitedOK && a.status == http.StatusTooManyRequests && a.retryAfter && a.layer == "rate_limit"
			}
			if a.status == http.StatusCreated {
				bought = append(bought, a.done.Sub(a.sent))
			}
		}
		sides[i] = s
		parts = append(parts, fmt.Sprintf("rate_limit_user %d: %d clicks, %d refused 429 rate_limited; buyers who got through: p99 %.0f ms; "+
			"%d sections under the lock; layers %s; %s",
			limit, len(all), s.limited, p99ms(bought), t.sections, t.layersText(), describeHerd(t.view)))
	}
	pass, why := rateLimitVerdict(sides[0], sides[1])
	out := strings.Join(parts, " | ")
	if !pass {
		out += " | FAIL: " + why
	}
	return out, pass, nil
}

// rateSide is one run of herd-rate-limit: its limit, the rate_limited
// answers (limitedOK: every one a 429 with Retry-After from the rate_limit
// layer) and the sale's truth.
type rateSide struct {
	limit     int
	limited   int
	limitedOK bool
	truth     herdTruth
}

// rateLimitVerdict: both runs sold exactly; without the limit no click was
// refused; with it some were, each a 429 with Retry-After from the
// rate_limit layer, and they were stopped before the lock: fewer sections
// took it than without the limit.
func rateLimitVerdict(off, on rateSide) (bool, string) {
	switch {
	case !off.truth.exact():
		return false, "without the limit the sale did not sell exactly: " + describeHerd(off.truth.view)
	case off.limited != 0 || off.truth.layers["rate_limit"] != 0:
		return false, fmt.Sprintf("without the limit %d clicks were refused rate_limited (layer rate_limit %d)",
			off.limited, off.truth.layers["rate_limit"])
	case !on.truth.exact():
		return false, "with the limit the sale did not sell exactly: " + describeHerd(on.truth.view)
	case on.limited == 0 || on.truth.layers["rate_limit"] == 0:
		return false, fmt.Sprintf("with the limit no click was refused (%d rate_limited, layer rate_limit %d)",
			on.limited, on.truth.layers["rate_limit"])
	case !on.limitedOK:
		return false, "a rate_limited answer was not a 429 with Retry-After from the rate_limit layer"
	case on.truth.sections >= off.truth.sections:
		return false, fmt.Sprintf("%d sections under the lock with the limit, %d without: the refused clicks did not stay out of the lock",
			on.truth.sections, off.truth.sections)
	}
	return true, ""
}

func p99ms(d []time.Duration) float64 {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return float64(d[(len(d)*99-1)/100]) / float64(time.Millisecond)
}

func describeHerd(v shopapi.SaleView) string {
	return fmt.Sprintf("sold %d/%d oversold %d duplicates %d", v.Sold, v.InitialStock, v.Oversold, v.Duplicates)
}
