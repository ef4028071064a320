package load

import (
	"encoding/json"
	"math"
	"runtime"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Report is the document --json writes. Its json tags ARE the schema;
// TestReportSchema pins them.
type Report struct {
	StartedAt time.Time `json:"started_at"` // RFC 3339
	Machine   Machine   `json:"machine"`
	Config    Config    `json:"config"`
	Results   []Result  `json:"results"` // one per strategy, in run order
}

// Machine is where the load was generated: figures mean little without it.
type Machine struct {
	CPUs   int    `json:"cpus"`
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
}

// Config is the run's configuration (the admin token is never written).
type Config struct {
	Targets      []string `json:"targets"`
	Strategy     string   `json:"strategy"` // as given: a name, names, or "all"
	Stock        int64    `json:"stock"`
	Buyers       int      `json:"buyers"`
	Model        string   `json:"model"`         // "closed", "open" or "herd"
	Concurrency  int      `json:"concurrency"`   // closed model workers; 0 in the open model
	Rate         float64  `json:"rate"`          // open model requests/s; 0 in the closed model
	MaxInFlight  int      `json:"max_in_flight"` // open model; 0 in the closed model
	DurationS    float64  `json:"duration_s"`    // --duration; 0: no limit
	WorkMS       int      `json:"work_ms"`
	TTLMS        int      `json:"ttl_ms"`
	Fencing      bool     `json:"fencing"`
	PerUserLimit int      `json:"per_user_limit"`
	MaxErrorRate float64  `json:"max_error_rate"` // fraction
	TimeoutS     float64  `json:"timeout_s"`
	// The sale's guards.
	OpensInMS      int64 `json:"opens_in_ms"` // 0: open at once
	SoldOutCache   bool  `json:"sold_out_cache"`
	RateLimitUser  int   `json:"rate_limit_user"`
	RateLimitIP    int   `json:"rate_limit_ip"`
	TicketRequired bool  `json:"ticket_required"`
	// How the sale takes orders: "sync" (201) or "async" (202 and a ticket),
	// and the reservation's pay-by window (0: paid when made).
	OrderMode   string `json:"order_mode"`
	PayWithinMS int    `json:"pay_within_ms"`
	// Combine: the lock strategies sold batches of the waiting orders.
	Combine bool `json:"combine"`
}

// Result is one strategy's run.
type Result struct {
	Strategy string `json:"strategy"`
	Safe     bool   `json:"safe"` // the strategy's own claim, from GET /api/strategies
	Model    string `json:"model"`
	Requests int64  `json:"requests"` // order requests sent and answered (or failed)
	Orders   int64  `json:"orders"`   // 201 answers
	Accepted int64  `json:"accepted"` // 202 answers: queued orders of an async sale
	SoldOut  int64  `json:"sold_out"` // 409 sold_out answers
	// Errors counts every other outcome by kind: the shop's refusal codes
	// (conflict, fenced, limit_reached, lock_timeout, lock_lost, ...) and the
	// hard errors (transport, timeout, http_<status>).
	Errors       map[string]int64 `json:"errors"`
	HardErrors   int64            `json:"hard_errors"` // the part of Errors that counts against --max-error-rate
	DurationS    float64          `json:"duration_s"`  // first send to last answer
	RequestsPerS float64          `json:"requests_per_s"`
	OrdersPerS   float64          `json:"orders_per_s"`
	LatencyMS    Latency          `json:"latency_ms"`
	// Sale is the API's view of the sale after the run, verbatim: the
	// database's truth (sold, stock, oversold, lost_updates, duplicates,
	// violations, fenced_writes, ...). null when it could not be read.
	Sale json.RawMessage `json:"sale"`
	// Server is the sale's server-side figures merged across replicas
	// (GET /api/sales/{id}/live: latency, lock wait and critical-section
	// percentiles and means), verbatim. Only `loadtest bench-report` fills
	// it (benchreport.go), hence omitempty.
	Server json.RawMessage `json:"server,omitempty"`
	// Layers counts the answers by the shop layer that gave them (the
	// Seckill-Layer header; "unknown" without one).
	Layers map[string]int64 `json:"layers"`
	// Herd is the first second after the opening (--opens-in only).
	Herd *Herd `json:"herd,omitempty"`
	// Retries is the CAS rounds the sale's orders lost (db-optimistic), from
	// the shop's live figures; nil when they could not be read.
	Retries *Retries `json:"retries,omitempty"`
	// Queue is the 202 tickets followed to their end (async sales only).
	Queue *Queue `json:"queue,omitempty"`
	// History is the shop's linearizability check of the sale's answered
	// requests (GET /api/sales/{id}/history); nil when it could not be read.
	History *shopapi.HistoryView `json:"history,omitempty"`
	Verdict string               `json:"verdict"`           // one of the verdict* constants
	Failure string               `json:"failure,omitempty"` // why the run could not complete (verdict FAILED)

	View shopapi.SaleView `json:"-"` // typed part of Sale, for the tables
}

// Herd is what a herd's report adds: the opening and the second after it.
type Herd struct {
	OpensAt     time.Time   `json:"opens_at"`
	FirstSecond FirstSecond `json:"first_second"`
	// SellOutS is from the opening to the last 201 (or 202) answer, when the stock
	// ran out (sold_out answers came); null when it did not.
	SellOutS *float64 `json:"sell_out_s"`
	// Shop is the shop's own figures (GET /api/sales/{id}/herd), the ones
	// the dashboard's Herd panel shows; null when the shop did not answer.
	Shop *shopapi.HerdView `json:"shop"`
}

// FirstSecond is the answers received within a second of the opening.
// Their latency runs from the send: how long the shop took under the herd.
type FirstSecond struct {
	Requests  int64            `json:"requests"`
	Orders    int64            `json:"orders"`
	Accepted  int64            `json:"accepted"`
	SoldOut   int64            `json:"sold_out"`
	LatencyMS Latency          `json:"latency_ms"`
	Layers    map[string]int64 `json:"layers"`
}

// Latency is client-side latency in milliseconds, from an HDR histogram (so
// within 0.1%). In the open model it runs from the intended send time.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Verdicts. Only OK and expected-unsafe pass.
const (
	VerdictOK         = "OK"
	VerdictOversold   = "OVERSOLD"        // a safe strategy sold more than the stock
	VerdictViolations = "VIOLATIONS"      // a safe strategy lost updates, overlapped critical sections or duplicated a buyer
	VerdictExpected   = "expected-unsafe" // an unsafe strategy broke the sale, as it is meant to show
	VerdictErrors     = "ERRORS"          // hard errors above --max-error-rate
	VerdictFailed     = "FAILED"          // the run could not be made or read back
	// An async sale's tickets, followed after the load (queue.go).
	VerdictMismatch  = "MISMATCH"  // a confirmed ticket whose order is not its own
	VerdictUnsettled = "UNSETTLED" // a 202 ticket still pending (or unreadable) when the wait ended
	VerdictLost      = "LOST"      // a 202 ticket the shop does not know (404)
	VerdictDrift     = "DRIFT"     // Redis stock + in flight disagrees with the database after the queue drained
)

// Passes reports whether a verdict lets the run exit 0.
func Passes(v string) bool { return v == VerdictOK || v == VerdictExpected }

// Verdict judges one sale. A safe strategy must leave no trace of broken
// exclusion; an unsafe one may (that is the lesson), but is still OK when it
// happened to hold this time. Hard errors beyond MaxErrorRate fail either.
func Verdict(safe bool, v shopapi.SaleView, hardErrors, requests int64, maxErrorRate float64) string {
	broken := v.Oversold > 0 || v.LostUpdates > 0 || v.Violations > 0 || v.Duplicates > 0
	switch {
	case safe && v.Oversold > 0:
		return VerdictOversold
	case safe && broken:
		return VerdictViolations
	case requests > 0 && float64(hardErrors)/float64(requests) > maxErrorRate:
		return VerdictErrors
	case broken:
		return VerdictExpected
	}
	return VerdictOK
}

// AllPassed reports whether every result passed.
func AllPassed(results []Result) bool {
	for _, r := range results {
		if !Passes(r.Verdict) {
			return false
		}
	}
	return true
}

func NewReport(cfg RunConfig, started time.Time) *Report {
	c := Config{
		Targets: cfg.Targets, Strategy: cfg.Strategy, Stock: cfg.Stock, Buyers: cfg.Buyers, Model: cfg.Model(),
		DurationS: cfg.Duration.Seconds(), WorkMS: cfg.WorkMS, TTLMS: cfg.TtlMS, Fencing: cfg.Fencing,
		PerUserLimit: cfg.PerUserLimit, MaxErrorRate: cfg.MaxErrorRate, TimeoutS: cfg.Timeout.Seconds(),
		OpensInMS: cfg.Guards.OpensIn.Milliseconds(), SoldOutCache: cfg.Guards.SoldOutCache,
		RateLimitUser: cfg.Guards.RateLimitUser, RateLimitIP: cfg.Guards.RateLimitIP, TicketRequired: cfg.Guards.TicketRequired,
		OrderMode: cfg.OrderMode, PayWithinMS: cfg.PayWithinMS, Combine: cfg.Combine,
	}
	if cfg.Rate > 0 || cfg.herd() {
		c.Rate, c.MaxInFlight = cfg.Rate, cfg.MaxInFlight
	} else {
		c.Concurrency = cfg.Concurrency
	}
	return &Report{
		StartedAt: started.UTC().Truncate(time.Millisecond),
		Machine:   Machine{CPUs: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH},
		Config:    c,
		Results:   []Result{},
	}
}

func NewResult(st shopapi.StrategyInfo, model string) Result {
	return Result{Strategy: st.Name, Safe: st.Safe, Model: model, Errors: map[string]int64{}, Layers: map[string]int64{},
		Sale: json.RawMessage("null")}
}

// HasView reports whether the sale's final view was read.
func (r Result) HasView() bool { return len(r.Sale) > 0 && string(r.Sale) != "null" }

// Failed marks the result FAILED with why.
func (r Result) Failed(why string) Result {
	r.Verdict, r.Failure = VerdictFailed, why
	return r
}

// Measure fills the client-side figures from the load phase.
func (r *Result) Measure(hist *hdrhistogram.Histogram, kinds map[string]int64, elapsed time.Duration) {
	for k, n := range kinds {
		r.Requests += n
		switch {
		case k == shopapi.KindOrder:
			r.Orders = n
		case k == shopapi.KindAccepted:
			r.Accepted = n
		case k == shopapi.KindSoldOut:
			r.SoldOut = n
		default:
			r.Errors[k] = n
			if shopapi.IsHardError(k) {
				r.HardErrors += n
			}
		}
	}
	r.DurationS = round3(elapsed.Seconds())
	if s := elapsed.Seconds(); s > 0 {
		r.RequestsPerS = round3(float64(r.Requests) / s)
		r.OrdersPerS = round3(float64(r.Orders) / s)
	}
	r.LatencyMS = latencyOf(hist)
}

// latencyOf is hist's percentiles in milliseconds; zeros when empty.
func latencyOf(hist *hdrhistogram.Histogram) Latency {
	if hist.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return round3(float64(us) / 1000) }
	return Latency{P50: ms(hist.ValueAtQuantile(50)), P95: ms(hist.ValueAtQuantile(95)),
		P99: ms(hist.ValueAtQuantile(99)), Max: ms(hist.Max())}
}

// MeasureLayers fills the answers per layer and, for a herd (r.Herd set
// with its opening), the first second and the time to sell out.
func (r *Result) MeasureLayers(f figures) {
	for k, n := range f.All.Layers {
		r.Layers[k] = n
	}
	if r.Herd == nil || f.first == nil {
		return
	}
	fs := FirstSecond{Orders: f.first.Kinds[shopapi.KindOrder], Accepted: f.first.Kinds[shopapi.KindAccepted], SoldOut: f.first.Kinds[shopapi.KindSoldOut],
		LatencyMS: latencyOf(f.first.Hist), Layers: map[string]int64{}}
	for k, n := range f.first.Layers {
		fs.Layers[k] = n
		fs.Requests += n
	}
	r.Herd.FirstSecond = fs
	last := f.lastOrder
	if f.LastAccepted.After(last) {
		last = f.LastAccepted // an async sale sells out at its last 202
	}
	if f.All.Kinds[shopapi.KindSoldOut] > 0 && !last.IsZero() {
		s := round3(max(last.Sub(r.Herd.OpensAt), 0).Seconds())
		r.Herd.SellOutS = &s
	}
}

// errorKinds lists r.Errors' kinds: refusals first, then hard errors, each
// sorted, so the table reads the same every time.
func (r Result) errorKinds() []string {
	kinds := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if hi, hj := shopapi.IsHardError(kinds[i]), shopapi.IsHardError(kinds[j]); hi != hj {
			return hj
		}
		return kinds[i] < kinds[j]
	})
	return kinds
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
